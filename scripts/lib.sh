# Shared paths and helpers for the scripts in this directory (sourced).
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
SRC=${SRC:-$BUILD/linux}
LAYERS=(core pagealloc transitions slab)

die() { echo "error: $*" >&2; exit 1; }
note() { echo ">>> $*" >&2; }

# git in the kernel tree, with an identity so `git am` works on a fresh machine.
tgit() { git -C "$SRC" -c user.name="ASI tree" -c user.email=asi@localhost "$@"; }
