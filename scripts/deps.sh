#!/bin/bash
# Install every Debian package the project uses. Idempotent: does nothing when
# all are present. Refreshes the package lists first when they are empty, and
# again before one retry when a download fails (stale lists).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# The kernel source; its build; warm rebuilds; the guest; what runs inside it
# over 9p (stress-ng, drgn with Debian's python3, crash, mkfs.ext4 for the
# page-cache scenario); gnuplot for make compare's plots; a 32-bit libc
# for the kernel's x86 selftests and libcap for its mm ones (memfd_secret).
PACKAGES=(
	linux-source-6.12
	build-essential bc bison flex cpio kmod
	libelf-dev libssl-dev dwarves xz-utils python3
	ccache
	qemu-system-x86
	stress-ng python3-drgn crash
	git
	gnuplot-nox e2fsprogs
	gcc-multilib libc6-dev-i386 libcap-dev
)
missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0

sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
install() { $sudo apt-get install -y --no-install-recommends "${missing[@]}"; }

note "installing: ${missing[*]}"
if [ -z "$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v -e lock -e partial)" ]; then
	$sudo apt-get update || die "apt-get update failed: check the network, then run 'make deps' again"
fi
if ! install; then
	note "install failed; refreshing package lists and retrying once"
	$sudo apt-get update || true
	install || {
		for p in "${missing[@]}"; do
			apt-cache policy "$p" 2>/dev/null | grep -q 'Candidate: [0-9]' ||
				echo "error: package '$p' is not available from the configured apt sources" >&2
		done
		die "could not install: ${missing[*]} (retry with: apt-get update && apt-get install ${missing[*]})"
	}
fi
