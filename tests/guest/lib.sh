# Sourced by the guest tests: their shared helpers.
fail() { echo "FAIL: $*"; exit 1; }
# A /proc/vmstat counter; empty where it does not exist (ASI compiled out).
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
# Skip (77) without /dev/kvm only where the CPU offers neither SVM nor VMX.
need_kvm() {
	[ -c /dev/kvm ] && return
	grep -qwE 'svm|vmx' /proc/cpuinfo && fail "the CPU has SVM or VMX but there is no /dev/kvm"
	echo "no /dev/kvm: the CPU model has neither SVM nor VMX"
	exit 77
}
# Whether the kernel has KASAN, whose shadow restricted spaces lack: its
# report function is in kallsyms (dmesg's boot line may have rotated out).
kasan() { grep -qw kasan_report /proc/kallsyms; }
