# Sourced by tests/distro/test-*.sh (run in the guest by tests/guest/runner.sh
# from `make test-distro`): shared helpers.
set -u
top=$(cd ../.. && pwd)
vmlinux=${VMLINUX:?not in a vm/run.sh guest}
fail() { echo "FAIL: $*"; exit 1; }
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
drgn_script() {	# script, arguments
	local s=$1; shift
	/usr/bin/python3 /usr/bin/drgn -q -k -s "$vmlinux" "$top/debug/$s" "$@"
}
# The whole-address-space invariant: exit status = violations. Up to 400
# lines, so that a failure shows every group it found.
check_clean() {	# when
	drgn_script asi_check.py --max-lines 400 || fail "asi_check.py found violations $1"
}

# Run one QEMU monitor (HMP) command through vm/monitor-relay.py; prints the
# monitor's reply; fails on an error or when no reply comes in 60 s.
hmp() {
	local dir=${ASI_OUT:?}/monitor id=$$-$RANDOM i
	[ -d "$dir" ] || fail "no monitor relay (vm/run.sh --monitor)"
	echo "$*" > "$dir/$id.tmp" && mv "$dir/$id.tmp" "$dir/$id.req"
	for ((i = 0; i < 300; i++)); do
		if [ -f "$dir/$id.rsp" ]; then
			local r
			r=$(cat "$dir/$id.rsp"); rm -f "$dir/$id.rsp"
			echo "$r"
			# QMP errors come as "error: ...", HMP's own in its reply text.
			! grep -qiE '^(error|unknown command)' <<< "$r" || fail "monitor: '$*': $r"
			return 0
		fi
		sleep 0.2
	done
	fail "monitor: no reply to '$*'"
}

alloc_mode() { cat /sys/kernel/mm/asi/alloc_mode; }
