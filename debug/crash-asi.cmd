# ASI state in a dump, for crash 8.0.2 (make crash runs it: vm/vmcore.sh):
#
#   crash -s --no_kmem_cache --no_panic -i debug/crash-asi.cmd VMLINUX VMCORE
#
# crash 8.0.2's gdb (10.2) cannot look this kernel's types up reliably
# (README, "Post-mortem"): most lookups crash it, some only now and then,
# depending on what it read before. What is here worked every time crash
# got through its start-up (it aborts in half of them on most dumps; make
# crash runs it again): each group first sets gdb's scope to a function of
# the file that defines the variables, where lookups work. Per-CPU
# variables do not (crash's "var:a" crashes, casts through __per_cpu_offset
# crash now and then): drgn shows them (debug/asi_transitions.py: each
# CPU's space and taints, the transition counters; debug/asi_freelists.py:
# the free lists by sensitivity), and make crash runs both after this.
#
# mm/asi_alloc.c: the page allocator's mode, asi_alloc= (ASI_ALLOC_FREELIST
# or ASI_ALLOC_PAGEFLAG), and its static keys: the one in use has enabled
# counter 1, both are 0 when ASI is off; /sys/kernel/mm/asi/flip_batch; the
# pages asi_alloc=pageflag has queued for unmapping.
set scope alloc_mode_show
p asi_alloc_mode
p asi_freelist_key
p asi_pageflag_key
p asi_flip_batch
p asi_pageflag_queued
# arch/x86/mm/asi.c: the global nonsensitive space; pgd is 0 when ASI is off.
set scope asi_init
p asi_global_nonsensitive
# mm/vmstat.c: the zone counters summed over zones, in enum zone_stat_item
# order, /proc/vmstat's first lines (nr_free_pages first); with ASI the
# last two are nr_free_nonsensitive and nr_free_nonsensitive_stranded.
set scope vmstat_start
p vm_zone_stat
# The free lists: per zone and order, one row per list of
# free_list[MIGRATE_TYPES][NR_SENSITIVITIES] in memory order, with the list
# head's address, the blocks on it and their pages (row j of an order:
# migratetype j / 2, sensitive when j is even, nonsensitive when odd; crash
# names neither), then the zones' NR_FREE_PAGES against what the lists hold.
kmem -f
