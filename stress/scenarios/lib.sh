# Sourced by the scenarios: sizes relative to the guest, and a kernel-memory
# fill (stress/kfill.py) held in the background.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mem_total_mib=$(awk '$1 == "MemTotal:" { print int($2 / 1024) }' /proc/meminfo)
# PERCENT of the guest's memory, in MiB.
pct_mib() { echo $(( mem_total_mib * $1 / 100 )); }

# Start filling MIB of kernel memory (kfill_start MIB [kfill.py options]);
# returns once it is held.
kfill_start() {
	coproc KFILL { exec python3 "$here/kfill.py" "$@"; }
	local line
	read -r line <&"${KFILL[0]}" || { echo "kfill.py failed" >&2; return 1; }
	echo "kfill.py: ${line#filled } MiB of kernel memory held"
}

# Free it all at once. Its files go too if it was OOM-killed meanwhile.
kfill_stop() {
	local pid=$KFILL_PID
	exec {KFILL[1]}>&-
	wait "$pid"
	rm -rf /tmp/kfill.*
}

# Whatever way the scenario ends, nothing of kfill.py stays behind.
kfill_cleanup() {
	if [ -n "${KFILL_PID:-}" ] && kill "$KFILL_PID" 2>/dev/null; then
		wait "$KFILL_PID" 2>/dev/null
	fi
	rm -rf /tmp/kfill.*
}
trap kfill_cleanup EXIT

# Let the caches go (reclaimable slab: dentries and inodes).
drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }

ng() { stress-ng --temp-path /tmp --oomable --metrics-brief "$@"; }
