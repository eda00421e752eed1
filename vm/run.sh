#!/bin/bash
# Boot a kernel under QEMU TCG with the host root shared read-only over 9p and
# run one command in the guest; exit with that command's status.
#
#   vm/run.sh [options] [--] [command...]     (no command: interactive shell)
#     --kernel PATH   bzImage (default build/out-asi/arch/x86/boot/bzImage)
#     --append ARGS   extra kernel parameters, e.g. "asi=off"
#     --out DIR       where console.log and status go (default: a new dir)
#     --timeout SEC   kill the guest after SEC seconds (default 900)
#     --mem SIZE      guest memory (default 1G)
#     --smp SPEC      vCPUs and topology (default 2)
#     --qemu ARGS     more QEMU arguments, split on white space (NUMA, devices)
#     --monitor       let the guest run QEMU monitor commands: it writes one
#                     HMP command to $ASI_OUT/monitor/<id>.req and gets the
#                     reply in <id>.rsp (vm/monitor-relay.py), e.g. to hot-add
#                     memory (tests/distro/lib.sh: hmp)
#
# Like bpf's vmtest.sh the status file starts out as a failure and only the
# guest overwrites it: a guest that crashes or hangs never reads as a pass.
# panic=-1 and -no-reboot make a panic or oops end QEMU at once.
set -uo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

kernel=$BUILD/out-asi/arch/x86/boot/bzImage
append= out= timeout=900 mem=1G smp=2 qemu_args= monitor=
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--qemu) qemu_args=$2; shift 2 ;;
	--monitor) monitor=1; shift ;;
	--) shift; break ;;
	-*) die "vm/run.sh: unknown option $1 (see the comment at the top of vm/run.sh)" ;;
	*) break ;;
	esac
done
[[ $timeout =~ ^[0-9]+$ ]] || die "--timeout wants seconds, got '$timeout'"
[ -f "$kernel" ] || die "no kernel at $kernel: run 'make kernel'"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing: run 'make deps'"

[ -n "$out" ] || out=$BUILD/vm/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/console.log" "$out/cmd"
echo 255 > "$out/status"
[ $# -gt 0 ] && printf '%q ' "$@" > "$out/cmd"
pwd > "$out/cwd"
kernel=$(cd "$(dirname "$kernel")" && pwd)/$(basename "$kernel")
# drgn in the guest reads the vmlinux that belongs to this bzImage.
echo "${kernel%/arch/x86/boot/bzImage}/vmlinux" > "$out/vmlinux"

# The guest's tmpfs mounts hide host paths under /tmp and the like, so the
# checkout (and the build directory, when it lives elsewhere) are shared by
# themselves and mounted back at the same paths (vm/guest-init.sh).
shares=(-fsdev "local,id=top,path=$TOP,security_model=none,readonly=on,multidevs=remap"
	-device "virtio-9p-pci,fsdev=top,mount_tag=asitop")
echo "asitop $TOP" > "$out/shares"
build=$(cd "$BUILD" && pwd)
if [[ $build != "$TOP"/* ]]; then
	shares+=(-fsdev "local,id=build,path=$build,security_model=none,readonly=on,multidevs=remap"
		-device "virtio-9p-pci,fsdev=build,mount_tag=asibuild")
	echo "asibuild $build" >> "$out/shares"
fi

cmdline="console=ttyS0 root=/dev/root rootfstype=9p ro"
cmdline+=" rootflags=trans=virtio,version=9p2000.L,msize=524288,cache=loose"
cmdline+=" init=$TOP/vm/guest-init.sh panic=-1 oops=panic no_hash_pointers $append"

extra=()
[ -n "$qemu_args" ] && read -ra extra <<< "$qemu_args"
relay=
if [ -n "$monitor" ]; then
	rm -rf "$out/monitor"
	mkdir -p "$out/monitor"
	# A socket path has at most 107 bytes: keep it short, whatever $out is.
	qmpdir=$(mktemp -d /tmp/asi-qmp.XXXXXX) || die "cannot create a directory in /tmp for QEMU's monitor socket"
	extra+=(-qmp "unix:$qmpdir/qmp.sock,server=on,wait=off")
	python3 "$TOP/vm/monitor-relay.py" "$qmpdir/qmp.sock" "$out/monitor" \
		2> "$out/monitor-relay.log" &
	relay=$!
	trap 'kill $relay 2>/dev/null; rm -rf "$qmpdir"' EXIT
fi

timeout -k 10 "$timeout" qemu-system-x86_64 \
	-accel tcg -cpu max -smp "$smp" -m "$mem" \
	-nodefaults -no-reboot -display none \
	-chardev stdio,id=con,signal=off,logfile="$out/console.log" -serial chardev:con \
	-kernel "$kernel" -append "$cmdline" \
	-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=/dev/root \
	"${shares[@]}" \
	-fsdev local,id=out,path="$out",security_model=none,multidevs=remap \
	-device virtio-9p-pci,fsdev=out,mount_tag=asiout \
	"${extra[@]}"
qemu_rc=$?

status=$(cat "$out/status" 2>/dev/null)
if [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
	echo "vm: guest timed out after ${timeout}s (console: $out/console.log)" >&2
	exit 124
fi
if [ "$status" = 255 ] || ! [[ $status =~ ^[0-9]+$ ]]; then
	echo "vm: guest died before reporting a status (qemu exit $qemu_rc; console: $out/console.log)" >&2
	exit 255
fi
exit "$status"
