#!/bin/bash
# Memory hot-add, online, use, offline and hot-remove under ASI. A 2 GiB DIMM
# is hot-added to node 2 (empty until then) through QEMU's monitor and
# onlined as kernel memory; a gigantic page comes from it; allocations bound
# to node 2 make its blocks nonsensitive (asi_alloc=freelist), mapped in the
# restricted direct map, and the checker is clean. Offlined, no restricted
# leaf maps it and its pageblocks are sensitive again; then it is removed.
. ./lib.sh
[ "$ASI_EXPECT" = on ] || exit 77
# What the kernel caches on node 2 goes back: slab objects freed after an
# RCU grace period (inodes), and the per-CPU slabs of node 2 that the bound
# process left behind, which other tasks on those CPUs would fill (a slab page
# with one live object keeps its block from going offline).
give_back_caches() {
	local f
	sync; echo 3 > /proc/sys/vm/drop_caches
	sleep 0.5
	for f in /sys/kernel/slab/*/shrink; do echo 1 > "$f"; done 2>/dev/null
}
mb=/sys/devices/system/memory
before=$(ls -d $mb/memory* | wc -l)
# Nodes 0 and 1 with room to spare, so that what the kernel allocates while
# the new memory comes online stays there rather than falling back to node 2
# (an unmovable page in each GiB of it leaves no room for a gigantic page).
give_back_caches
echo 1 > /proc/sys/vm/compact_memory

hmp "object_add memory-backend-ram,id=hp0,size=2G"
hmp "device_add pc-dimm,id=dimm0,memdev=hp0,node=2"
block_bytes=$((16#$(cat $mb/block_size_bytes)))
want=$((before + (2 << 30) / block_bytes))
for ((i = 0; i < 150; i++)); do
	[ "$(ls -d $mb/memory* | wc -l)" -ge "$want" ] && break
	sleep 0.2
done
blocks=()
for m in $mb/memory*; do
	[ "$(cat "$m/state")" = offline ] && [ -e "$m/node2" ] && blocks+=("$m")
done
[ ${#blocks[@]} -gt 0 ] || fail "the hot-added DIMM brought no offline memory blocks to node 2"
echo "hot-added: ${#blocks[@]} memory blocks on node 2"
for m in "${blocks[@]}"; do
	echo online_kernel > "$m/state" || fail "cannot online $(basename "$m")"
done
[ ${#blocks[@]} = $(((2 << 30) / block_bytes)) ] || fail "expected $(((2 << 30) / block_bytes)) blocks"
# phys_index is hex. Every pageblock of the DIMM, for the checks below.
first_pfn=$((16#$(cat "${blocks[0]}/phys_index") * block_bytes / 4096))
pfns=()
for m in "${blocks[@]}"; do
	b=$((16#$(cat "$m/phys_index") * block_bytes / 4096))
	for ((p = b; p < b + block_bytes / 4096; p += 512)); do pfns+=("$p"); done
done

# A runtime gigantic page: alloc_contig_range() over the new memory (its
# first sections hold the page_ext of the later ones, hence 2 GiB).
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
if [ "$(alloc_mode)" = freelist ]; then
	[ "${ns:-0}" -gt 0 ] || fail "no pageblock flipped to nonsensitive on node 2"
fi
check_clean "with the hot-added memory online"

# Offline: nothing may stay mapped, no block may stay nonsensitive. Last
# block first: a block's page_ext (page_owner) may sit in an earlier one.
reverse=()
for ((i = ${#blocks[@]} - 1; i >= 0; i--)); do reverse+=("${blocks[i]}"); done
offline_all() {
	local m i
	for m in "${reverse[@]}"; do
		for ((i = 0; i < 8; i++)); do
			give_back_caches
			echo offline > "$m/state" 2>/dev/null && break
			sleep 1
		done
		[ "$(cat "$m/state")" = offline ] || fail "cannot offline $(basename "$m")"
	done
}
offline_all
out=$(drgn_script asi_freelists.py pfn "${pfns[@]}") || fail "pfn: $out"
echo "$out" | grep -E '^pfn|pageblock|restricted' | head -12
n=${#pfns[@]}
[ "$(echo "$out" | grep -c '^  restricted: not mapped')" = "$n" ] ||
	fail "offline memory: not all $n pageblocks unmapped in the restricted direct map"
[ "$(echo "$out" | grep -c '^  pageblock .*, sensitive$')" = "$n" ] ||
	fail "offline memory: not all $n pageblocks sensitive"

# Online again: sensitive from the start; then remove the DIMM.
for m in "${blocks[@]}"; do echo online_kernel > "$m/state" || fail "cannot re-online"; done
check_clean "after re-onlining"
offline_all
hmp "device_del dimm0"
for ((i = 0; i < 100; i++)); do
	[ "$(ls -d $mb/memory* | wc -l)" -eq "$before" ] && break
	sleep 0.2
done
[ "$(ls -d $mb/memory* | wc -l)" -eq "$before" ] || fail "the DIMM's memory blocks did not go away"
out=$(drgn_script asi_pgtable.py addr "phys:$((first_pfn * 4096))") || fail "addr: $out"
echo "$out"
echo "$out" | grep -q 'restricted (global nonsensitive): not mapped' || fail "removed memory mapped restricted"
# The blocks go before ACPI ejects the DIMM: its backend is busy until then.
for ((i = 0; i < 50; i++)); do
	hmp "info memory-devices" | grep -q dimm0 || break
	sleep 0.2
done
hmp "object_del hp0"
echo "PASS"
