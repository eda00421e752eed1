#!/bin/bash
# Memory hot-add, online, use, offline and hot-remove under ASI, on node 2
# (empty until then), through QEMU's monitor and sysfs.
#
# A 2 GiB DIMM comes online as kernel memory: a gigantic page comes from it,
# allocations bound to node 2 make its blocks nonsensitive
# (asi_alloc=freelist), mapped in the restricted direct map, and the checker
# is clean. Its blocks then go offline, nonsensitive ones among them: none
# may stay mapped or nonsensitive; online again they start sensitive.
# Kernel memory need not go offline (upstream offers no such promise): with
# KASAN, the vmalloc allocator keeps descriptors of its own on node 2 once
# KASAN's shadow of later blocks was vmalloc()ed there, so the first block
# that holds them stays; the test wants most blocks, and the nonsensitive
# ones, offline. The DIMM stays.
# A 512 MiB DIMM then comes online as movable memory, which is what memory
# meant to go away is onlined as: it goes offline whole and is removed, and
# nothing restricted maps it afterwards.
. ./lib.sh
[ "$ASI_EXPECT" = on ] || exit 77
# What the kernel caches on node 2 goes back: slab objects freed after an
# RCU grace period (inodes), and the per-CPU slabs of node 2 that the bound
# process left behind, which other tasks on those CPUs would fill (a slab page
# with one live object keeps its block from going offline). On a retry,
# lazily freed vmap areas go too, at the purge that set_memory_*() forces
# (the test module's load and unload).
ko=${vmlinux%/vmlinux}/asi-test-module/asi_test_mod.ko
give_back_caches() {	# [try number]
	local f
	if [ "${1:-0}" -gt 0 ] && [ -f "$ko" ] && insmod "$ko" 2>/dev/null; then
		rmmod asi_test_mod
	fi
	sync; echo 3 > /proc/sys/vm/drop_caches
	sleep 0.5
	for f in /sys/kernel/slab/*/shrink; do echo 1 > "$f"; done 2>/dev/null
}
mb=/sys/devices/system/memory
block_bytes=$((16#$(cat $mb/block_size_bytes)))
blocks=()
# Hot-add a DIMM to node 2 and set blocks to its (still offline) memory blocks.
hot_add() {	# id size
	local want i m
	want=$(($(ls -d $mb/memory* | wc -l) + $2 / block_bytes))
	hmp "object_add memory-backend-ram,id=hp$1,size=$2"
	hmp "device_add pc-dimm,id=dimm$1,memdev=hp$1,node=2"
	for ((i = 0; i < 150; i++)); do
		[ "$(ls -d $mb/memory* | wc -l)" -ge "$want" ] && break
		sleep 0.2
	done
	blocks=()
	for m in $mb/memory*; do
		[ "$(cat "$m/state")" = offline ] && [ -e "$m/node2" ] && blocks+=("$m")
	done
	[ ${#blocks[@]} = $(($2 / block_bytes)) ] ||
		fail "DIMM $1: ${#blocks[@]} offline memory blocks on node 2, expected $(($2 / block_bytes))"
	echo "hot-added: DIMM $1, ${#blocks[@]} memory blocks on node 2"
}
# Every pageblock's first pfn of the memory blocks given (phys_index is hex).
block_pfns() {
	local m b p
	for m in "$@"; do
		b=$((16#$(cat "$m/phys_index") * block_bytes / 4096))
		for ((p = b; p < b + block_bytes / 4096; p += 512)); do echo $p; done
	done
}
# "<pfn> <sensitive|nonsensitive> <mapped|unmapped>" per pfn, restricted
# direct map and pageblock bit, from asi_freelists.py.
pfn_states() {
	local out
	out=$(drgn_script asi_freelists.py pfn "$@") || fail "asi_freelists.py pfn: $out"
	echo "$out" | awk '/^pfn / { pfn = $2 }
		/^  pageblock / { sens = $NF }
		/^  restricted: / { print pfn, sens, ($0 ~ /not mapped/ ? "unmapped" : "mapped") }'
}
# Offline the memory blocks given, last first (a block's page_ext, with
# page_owner, may sit in an earlier one); offlined is set to those that went.
offline_blocks() {
	local m i
	offlined=()
	for ((m = $#; m >= 1; m--)); do
		for ((i = 0; i < 8; i++)); do
			give_back_caches $i
			echo offline > "${!m}/state" 2>/dev/null && break
			sleep 1
		done
		if [ "$(cat "${!m}/state")" = offline ]; then
			offlined+=("${!m}")
		else
			echo "stays online: $(basename "${!m}")"
		fi
	done
}
# Room on nodes 0 and 1 first, so that what the kernel allocates while the
# new memory comes online stays there rather than falling back to node 2
# (an unmovable page in each GiB of it leaves no room for a gigantic page).
give_back_caches
echo 1 > /proc/sys/vm/compact_memory

# ---- 2 GiB of kernel memory.
hot_add 0 $((2 << 30))
# Each block that comes online is filled with 2 MiB huge pages at once, so
# that what onlining the next one allocates for itself (KASAN's shadow and
# page_ext: unmovable) comes from nodes 0 and 1. Left to the allocator it
# lands anywhere on node 2, since free page reporting moves not yet reported
# (new) memory to the head of the free lists, and one such page in each GiB
# leaves no room for a gigantic page.
hold=/sys/devices/system/node/node2/hugepages/hugepages-2048kB/nr_hugepages
for m in "${blocks[@]}"; do
	echo online_kernel > "$m/state" || fail "cannot online $(basename "$m")"
	echo 100000 > $hold
done
echo "held on node 2 while onlining: $(cat $hold) huge pages of 2 MiB"
echo 0 > $hold
kernel_blocks=("${blocks[@]}")

# A runtime gigantic page: alloc_contig_range() over the new memory.
g=/sys/devices/system/node/node2/hugepages/hugepages-1048576kB/nr_hugepages
echo 1 > $g
if [ "$(cat $g)" != 1 ]; then
	grep 'Node 2' /proc/buddyinfo
	grep -E 'MemFree|MemUsed' /sys/devices/system/node/node{0,1,2}/meminfo
	fail "no gigantic page from the hot-added memory"
fi
echo 0 > $g

# Page tables and slab of a process bound to node 2 (MPOL_BIND).
/usr/bin/python3 "$top/tests/distro/bind_and_touch.py" 2 || fail "bind_and_touch failed"
give_back_caches
# New memory starts sensitive: free nonsensitive pages on node 2 come from
# flips there (the freed page tables went back to their blocks).
ns=$(awk '$1 == "nr_free_nonsensitive" { print $2 }' /sys/devices/system/node/node2/vmstat)
echo "node 2: nr_free_nonsensitive ${ns:-absent}"
freelist=
[ "$(alloc_mode)" = freelist ] && freelist=1
if [ -n "$freelist" ]; then
	[ "${ns:-0}" -gt 0 ] || fail "no pageblock flipped to nonsensitive on node 2"
fi
check_clean "with the hot-added memory online"

# Offline: nothing may stay mapped, no block may stay nonsensitive.
mapfile -t before < <(pfn_states $(block_pfns "${kernel_blocks[@]}"))
was_ns=$(printf '%s\n' "${before[@]}" | awk '$2 == "nonsensitive" { print $1 }')
echo "before offlining: $(echo "$was_ns" | grep -c .) of ${#before[@]} pageblocks nonsensitive"
offline_blocks "${kernel_blocks[@]}"
echo "offline: ${#offlined[@]} of ${#kernel_blocks[@]} memory blocks"
[ ${#offlined[@]} -ge $((${#kernel_blocks[@]} / 2)) ] ||
	fail "fewer than half of the kernel memory blocks went offline"
mapfile -t after < <(pfn_states $(block_pfns "${offlined[@]}"))
printf '%s\n' "${after[@]}" | head -4
bad=$(printf '%s\n' "${after[@]}" | awk '$2 != "sensitive" || $3 != "unmapped"')
[ -z "$bad" ] || fail "offline memory still nonsensitive or mapped restricted: $(echo "$bad" | head -3)"
went=$(printf '%s\n' "${after[@]}" | awk '{ print $1 }' | grep -cxF -f <(echo "$was_ns") || true)
echo "offline: $went pageblocks that were nonsensitive, now sensitive and unmapped"
if [ -n "$freelist" ]; then
	[ "$went" -gt 0 ] || fail "no nonsensitive pageblock went offline: that path is untested"
fi
# Online again: sensitive from the start.
for m in "${offlined[@]}"; do
	echo online_kernel > "$m/state" || fail "cannot re-online $(basename "$m")"
done
check_clean "after re-onlining"

# ---- 512 MiB of movable memory: offline whole, then removed.
hot_add 1 $((512 << 20))
for m in "${blocks[@]}"; do
	echo online_movable > "$m/state" || fail "cannot online $(basename "$m") movable"
done
first_pfn=$((16#$(cat "${blocks[0]}/phys_index") * block_bytes / 4096))
before_count=$(ls -d $mb/memory* | wc -l)
check_clean "with movable memory hot-added"
offline_blocks "${blocks[@]}"
[ ${#offlined[@]} = ${#blocks[@]} ] || fail "movable memory did not all go offline"
hmp "device_del dimm1"
want=$((before_count - ${#blocks[@]}))
for ((i = 0; i < 100; i++)); do
	[ "$(ls -d $mb/memory* | wc -l)" -eq "$want" ] && break
	sleep 0.2
done
[ "$(ls -d $mb/memory* | wc -l)" -eq "$want" ] || fail "the DIMM's memory blocks did not go away"
out=$(drgn_script asi_pgtable.py addr "phys:$((first_pfn * 4096))") || fail "addr: $out"
echo "$out"
echo "$out" | grep -q 'restricted (global nonsensitive): not mapped' || fail "removed memory mapped restricted"
# The blocks go before ACPI ejects the DIMM: its backend is busy until then.
for ((i = 0; i < 50; i++)); do
	hmp "info memory-devices" | grep -q dimm1 || break
	sleep 0.2
done
hmp "object_del hp1"
check_clean "after the hot-remove"
echo "PASS"
