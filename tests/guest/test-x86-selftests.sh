#!/bin/bash
# The kernel's own x86 entry tests (tools/testing/selftests/x86, 32- and
# 64-bit, built on the host by tests/run.sh into $X86_SELFTESTS): sigreturn
# to odd segments and 16-bit stacks (espfix), single-stepping into system
# calls, SYSRET's corner cases, vm86, the LDT, FSGSBASE, iopl, vsyscall and
# the vDSO. Each enters or leaves the kernel in an unusual way, which ASI's
# entry, exit and fault paths must all get right. Every one must pass (0) or
# skip (4, KSFT_SKIP) in every boot, ASI on or off; one that fails also on
# asi=off under TCG is listed below with why, and still runs, and the few
# that TCG cannot run at all are listed apart.
set -u
# The asi=bogus boot is asi=off again: that boot runs them.
[ "${ASI_EXPECT:-}" = invalid ] && { echo "the asi=off boot runs them"; exit 77; }
dir=${X86_SELFTESTS:-}
[ -n "$dir" ] || { echo "X86_SELFTESTS not set (tests/run.sh builds the selftests and sets it)"; exit 77; }
[ -d "$dir" ] || { echo "FAIL: X86_SELFTESTS=$dir is not a directory here"; exit 1; }

# Not run: QEMU's TCG pops a far return's (lretq's) operands from the user
# stack with supervisor access, which SMAP faults, and the kernel oopses
# on the "supervisor read access in user mode" (asi=off as well).
declare -A unrunnable=(
	[test_syscall_vdso_32]="lretq from compat mode: TCG's far return trips SMAP"
	[sysret_ss_attrs_64]="lretq to compat mode: TCG's far return trips SMAP"
	[syscall_numbering_64]="thousands of system call numbers: minutes under TCG"
)
# Fail under TCG whatever the kernel (asi=off as well), and how: name ->
# "exit status: why". Any other status is a failure.
declare -A tcg=(
	[mov_ss_trap_64]="139: SIGSEGV under TCG"
)
# Fewer passes than this means tests turned into skips.
min_passed=38

n=0 failed=0 skipped=0 known=0
for t in "$dir"/*_32 "$dir"/*_64; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	n=$((n + 1))
	if [ -n "${unrunnable[$name]:-}" ]; then
		echo "skip $name: ${unrunnable[$name]}"
		skipped=$((skipped + 1))
		continue
	fi
	out=$(cd /tmp && timeout -k 5 60 "$t" 2>&1 < /dev/null)
	rc=$?
	# test_shadow_stack says so and exits 1 without CET.
	if [ "$name" = test_shadow_stack_64 ] && [ $rc = 1 ] &&
		grep -q '^\[SKIP\].*Shadow stack' <<< "$out" && ! grep -q '^\[FAIL\]' <<< "$out"; then
		rc=4
	fi
	case $rc in
	0) echo "ok $name" ;;
	4) echo "skip $name"; skipped=$((skipped + 1)) ;;
	*)
		known_as=${tcg[$name]:-}
		if [ -n "$known_as" ] && [ "${known_as%%:*}" = "$rc" ]; then
			echo "known $name (exit $rc): ${known_as#*: }"
			known=$((known + 1))
		else
			{ grep -E '\[(FAIL|BUG)\]' <<< "$out" || tail -3 <<< "$out"; } |
				head -5 | sed 's/^/    /'
			echo "not ok $name (exit $rc)"
			failed=$((failed + 1))
		fi
		;;
	esac
done
[ "$n" -ge 40 ] || { echo "FAIL: only $n selftests in $dir (expected the 32- and 64-bit builds)"; exit 1; }
passed=$((n - failed - skipped - known))
echo "$n selftests: $passed passed, $failed failed, $skipped skipped, $known known TCG failures"
[ "$failed" = 0 ] || { echo "FAIL: x86 selftests failed"; exit 1; }
[ "$passed" -ge $min_passed ] || { echo "FAIL: only $passed passed, $min_passed expected"; exit 1; }
echo "PASS"
