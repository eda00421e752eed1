#!/bin/bash
# What a distribution kernel does with memory, with stress-ng running and the
# kernel's checkers on (KASAN, debug_pagealloc, page_owner, lockdep,
# panic_on_warn: a report ends the boot and tests/run.sh sees it):
# NUMA nodes each get nonsensitive memory of their own; a CMA allocation
# (alloc_contig_range() for a nonsensitive caller); 2 MiB hugetlbfs pages;
# KSM merging; swap to zram behind zswap under a cgroup's memory limit; free
# page reporting to the balloon. Then the whole-address-space checker.
. ./lib.sh
[ "$ASI_EXPECT" = invalid ] && exit 77
"$top/stress/mem-pressure.sh" 600 > /tmp/stress.log 2>&1 &
stress=$!
swapper=
# On a failure too: no process, swap device or cgroup left to the next test.
trap 'kill $stress $swapper 2>/dev/null; wait 2>/dev/null
	swapoff /dev/zram0 2>/dev/null; rmdir /sys/fs/cgroup/swaptest 2>/dev/null' EXIT

echo "--- NUMA"
for n in 0 1; do
	/usr/bin/python3 "$top/tests/distro/bind_and_touch.py" $n || fail "bind_and_touch $n failed"
	grep -E 'MemTotal|MemFree' /sys/devices/system/node/node$n/meminfo
	ns=$(awk '$1 == "nr_free_nonsensitive" { print $2 }' /sys/devices/system/node/node$n/vmstat)
	echo "node $n: nr_free_nonsensitive ${ns:-absent}"
	if [ "$ASI_EXPECT" = on ] && [ "$(alloc_mode)" = freelist ]; then
		[ "${ns:-0}" -gt 0 ] || fail "node $n has no free nonsensitive memory after its page tables were freed"
	fi
done

echo "--- CMA"
cma=$(awk '$1 == "CmaTotal:" { print $2 }' /proc/meminfo)
[ "${cma:-0}" -ge 65536 ] || fail "no 64 MiB CMA area (CmaTotal ${cma:-absent} kB)"
c=$(ls -d /sys/kernel/debug/cma/* | head -1)
echo 2048 > "$c/alloc" || fail "cma_alloc of 8 MiB failed"
check_clean "with a CMA allocation held"
echo 2048 > "$c/free" || fail "cma_release failed"

echo "--- hugetlbfs (2 MiB)"
# With hugetlb_free_vmemmap=on, each huge page frees most of its vmemmap
# pages: restricted spaces' copy of the vmemmap must follow (check_clean).
memmap() { awk '$1 ~ /^nr_memmap(_boot)?_pages$/ { n += $2 } END { print n + 0 }' /proc/vmstat; }
m0=$(memmap)
echo 16 > /proc/sys/vm/nr_hugepages
[ "$(cat /proc/sys/vm/nr_hugepages)" -ge 8 ] || fail "fewer than 8 huge pages"
echo "vmemmap pages: $m0 before the huge pages, $(memmap) after"
if [ "$(cat /proc/sys/vm/hugetlb_optimize_vmemmap 2>/dev/null)" = 1 ]; then
	[ "$(memmap)" -lt "$m0" ] || fail "hugetlb_optimize_vmemmap is on but no vmemmap page was freed"
fi
mkdir -p /tmp/huge && mount -t hugetlbfs none /tmp/huge || fail "cannot mount hugetlbfs"
/usr/bin/python3 - <<'PY' || fail "hugetlbfs mapping failed"
import mmap, os
fd = os.open("/tmp/huge/f", os.O_CREAT | os.O_RDWR)
os.ftruncate(fd, 8 << 20)  # Python's mmap refuses to map past the end
m = mmap.mmap(fd, 8 << 20)
for off in range(0, 8 << 20, 4096):
    m[off] = 0x5a
assert all(m[off] == 0x5a for off in range(0, 8 << 20, 4096))
print("hugetlbfs: 8 MiB written and read back")
PY
grep -E 'HugePages_(Total|Free)' /proc/meminfo
check_clean "with hugetlb pages in use"
rm -f /tmp/huge/f; umount /tmp/huge; echo 0 > /proc/sys/vm/nr_hugepages

echo "--- KSM"
# Scan fast: ksmd runs niced, and stress-ng keeps both vCPUs busy.
echo 1000 > /sys/kernel/mm/ksm/pages_to_scan
echo 20 > /sys/kernel/mm/ksm/sleep_millisecs
echo 1 > /sys/kernel/mm/ksm/run
/usr/bin/python3 - <<'PY' || fail "KSM merged nothing"
import mmap, time
n = 256
# Private: KSM ignores shared mappings (Python's default) without an error.
m = mmap.mmap(-1, n * 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
for i in range(n):
    m[i * 4096:(i + 1) * 4096] = b"\x77" * 4096
m.madvise(mmap.MADV_MERGEABLE)
def ksm(name):
    return int(open(f"/sys/kernel/mm/ksm/{name}").read())
for _ in range(300):
    if ksm("pages_sharing") > 0:
        print(f"ksm: {ksm('pages_sharing')} pages sharing")
        break
    time.sleep(0.2)
else:
    raise SystemExit(f"no page merged in 60 s ({ksm('full_scans')} full scans)")
PY
echo 2 > /sys/kernel/mm/ksm/run

echo "--- swap on zram, zswap"
echo 1 > /sys/module/zswap/parameters/enabled 2>/dev/null
echo 256M > /sys/block/zram0/disksize || fail "cannot size zram0"
mkswap /dev/zram0 > /dev/null && swapon /dev/zram0 || fail "cannot swap on zram0"
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
echo +memory > /sys/fs/cgroup/cgroup.subtree_control || fail "no memory controller"
mkdir -p /sys/fs/cgroup/swaptest
echo 32M > /sys/fs/cgroup/swaptest/memory.max || fail "cannot limit the cgroup"
# 96 MiB of anonymous memory, distinct in every page, written in a 32 MiB
# cgroup and then held: most of it waits compressed in zswap's and zram's
# zsmalloc pages while the checker runs (they are user data: sensitive).
bash -c 'echo $$ > /sys/fs/cgroup/swaptest/cgroup.procs && exec /usr/bin/python3 -c "
import mmap, time
n = 96 << 20
m = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
for off in range(0, n, 4096):
    m[off:off + 16] = off.to_bytes(8, \"little\") * 2
print(\"96 MiB written\", flush=True)
time.sleep(600)
"' > /tmp/swapper.log 2>&1 &
swapper=$!
for ((i = 0; i < 120; i++)); do
	grep -q written /tmp/swapper.log && break
	kill -0 $swapper 2>/dev/null || break
	sleep 1
done
grep -q written /tmp/swapper.log || fail "the process in the 32 MiB cgroup did not write its memory"
grep -E '^(pswpout|zswpout|zswpin|pswpin|nr_zspages) ' /proc/vmstat
# This cgroup's own count: the background stress swaps too.
out=$(awk '$1 == "zswpout" { print $2 }' /sys/fs/cgroup/swaptest/memory.stat)
echo "zswpout in the 32 MiB cgroup: ${out:-absent}"
[ "${out:-0}" -gt 0 ] || fail "nothing of the cgroup went out to zswap"
zs=$(awk '$1 == "zswap" { print $2 }' /sys/fs/cgroup/swaptest/memory.stat)
[ "${zs:-0}" -gt 0 ] || fail "none of the cgroup's memory is in zswap now (zswap ${zs:-absent} bytes)"
kill -0 $swapper 2>/dev/null || fail "the process holding the swapped memory is gone"
check_clean "with user memory compressed in zswap ($zs bytes of the cgroup's)"
kill $swapper; wait $swapper 2>/dev/null
swapper=
swapoff /dev/zram0 || fail "swapoff failed"
rmdir /sys/fs/cgroup/swaptest

echo "--- free page reporting"
kill $stress 2>/dev/null; wait $stress 2>/dev/null
sync; echo 3 > /proc/sys/vm/drop_caches
sleep 5
out=$(/usr/bin/python3 /usr/bin/drgn -q -k -s "$vmlinux" "$top/tests/distro/reported_pages.py") ||
	fail "reported_pages.py failed: $out"
echo "$out"
[ "$(echo "$out" | awk '/^reported:/ { print $2 }')" -gt 0 ] || fail "no free page was reported to the balloon"

tail -5 /tmp/stress.log
check_clean "after all of it"
echo "PASS"
