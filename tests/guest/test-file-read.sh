#!/bin/bash
# ASI local mappings for page-cache reads (filemap_copy_folio_to_iter()).
# Page-cache folios are user data, absent from the restricted space a
# process's system calls run in; read() copies them through the CPU's slot
# in the process's own space instead of exiting it. file-read.py reads a
# file back in chunks that straddle pages, its last page partial, and
# checks every byte, on ramfs (filemap_read()), tmpfs (shmem) and tmpfs
# with huge pages (large folios, which must be there): each page a read
# copies from takes a local mapping, and page-fault exits stay far below
# the one per read that copies through the direct map take (after an exit
# the rest of the system call runs unrestricted). A reader with a second
# thread maps nothing (another CPU could cache the slot): it exits on
# nearly every read, which also shows that the exit counter sees such
# copies, and still reads the file intact. So does a read of 256 KiB, more
# than a mapping per page is worth (FILEMAP_ASI_LOCAL_MAX, 32 KiB). With
# ASI off nothing is mapped.
# Under KASAN, whose shadow restricted spaces lack, the system calls exit
# on the shadow before they copy: there the counts are shown, not required.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
: "${ASI_EXPECT:?set ASI_EXPECT to on, off or invalid}"
if [ "$ASI_EXPECT" = on ]; then
	[ -n "$(vmstat asi_local_map)" ] && [ -n "$(vmstat asi_exit_page_fault)" ] ||
		fail "no asi_local_map or asi_exit_page_fault in /proc/vmstat"
fi
mnt=$(mktemp -d /tmp/file-read.XXXXXX) || fail "cannot make a directory in /tmp"
trap 'umount "$mnt" 2>/dev/null; rmdir "$mnt"' EXIT

# Reads in $1, options $2...: sets reads, pages, locals, exits and huge.
read_back() {
	local dir=$1 out
	shift
	out=$(/usr/bin/python3 "$top/tests/guest/file-read.py" "$dir" "$@") ||
		fail "file-read.py $* in $dir: $out"
	echo "$out"
	[[ $out =~ ^file-read:\ ([0-9]+)\ reads.*over\ ([0-9]+)\ pages.*local\ maps\ (-?[0-9]+),\ page-fault\ exits\ (-?[0-9]+)\;\ huge\ (-?[0-9]+) ]] ||
		fail "cannot parse: $out"
	reads=${BASH_REMATCH[1]} pages=${BASH_REMATCH[2]} locals=${BASH_REMATCH[3]}
	exits=${BASH_REMATCH[4]} huge=${BASH_REMATCH[5]}
}

for fs in ramfs tmpfs tmpfs-huge; do
	case $fs in
	ramfs) mount -t ramfs ramfs "$mnt" ;;
	tmpfs) mount -t tmpfs -o size=64m tmpfs "$mnt" ;;
	tmpfs-huge)
		# Room for huge pages, however fragmented earlier tests left memory.
		echo 1 > /proc/sys/vm/compact_memory
		mount -t tmpfs -o size=64m,huge=always tmpfs "$mnt" ;;
	esac || fail "cannot mount $fs on $mnt"
	echo "--- $fs"
	read_back "$mnt" --passes 8
	if [ $fs = tmpfs-huge ] && [ "$huge" -lt 2048 ]; then
		fail "tmpfs-huge: the file got no huge page (ShmemHugePages grew by $huge kB)"
	fi
	if [ "$ASI_EXPECT" != on ]; then
		[ "$locals" -le 0 ] || fail "$fs: $locals local mappings with ASI off"
	elif kasan; then
		echo "(KASAN: the system calls exit on the shadow before they copy; counts not checked)"
	else
		# The counter is global: allow for another process's pipe copies,
		# and for a copy cut short (its user page briefly not present).
		[ "$locals" -ge $((pages - pages / 100)) ] && [ "$locals" -le $((pages + pages / 10)) ] ||
			fail "$fs: $locals local mappings for $pages pages read"
		[ "$exits" -lt $((reads / 10)) ] ||
			fail "$fs: $exits page-fault exits for $reads reads: the copies left the space"
	fi
	for how in --threaded --chunk=262144; do
		read_back "$mnt" --passes 2 $how
		if [ "$ASI_EXPECT" = on ] && ! kasan; then
			[ "$locals" -lt $((pages / 10)) ] ||
				fail "$fs: reading $how took $locals local mappings for $pages pages"
			[ "$exits" -ge $((reads / 2)) ] ||
				fail "$fs: reading $how made only $exits exits for $reads reads"
		fi
	done
	umount "$mnt" || fail "cannot unmount $fs"
done
echo "PASS"
