# SPDX-License-Identifier: GPL-2.0
"""Count free pages that free page reporting handed to the host (drgn):
buddy heads with PG_reported (PG_uptodate's bit on a free page), per
sensitivity. Usage: drgn -q -k -s vmlinux reported_pages.py"""
import os
import sys

from drgn.helpers.linux.list import list_for_each_entry

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../debug"))
from asi_drgn_common import zones  # noqa: E402

prog = globals()["prog"]
bit = 1 << prog.constant("PG_uptodate").value_()
area_t = prog.type("struct free_area")
mts, sens = (area_t.member("free_list").type.length,
             area_t.member("free_list").type.type.length)
counts = [0] * sens
for zone in zones(prog):
    for order in range(len(zone.free_area)):
        area = zone.free_area[order]
        for mt in range(mts):
            for s in range(sens):
                for page in list_for_each_entry("struct page", area.free_list[mt][s].address_of_(),
                                                "buddy_list"):
                    if page.flags.value_() & bit:
                        counts[s] += 1 << order
print("reported free pages by sensitivity: " + " ".join(str(c) for c in counts))
print(f"reported: {sum(counts)}")
