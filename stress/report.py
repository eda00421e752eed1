#!/usr/bin/env python3
"""Turn `make compare`'s RESULT lines into a Markdown report and plots.

Each input line is what stress/scenario.sh prints last, with the boot's mode
(off, pageflag or freelist) in it:
  RESULT scenario=burst mode=freelist rc=0 oom_kill=0 ...
The report gives, per scenario and metric, each mode's median and range over
the repeats, ratios to asi=off, the two goals checked, and a conclusion
drawn from the numbers. With gnuplot, PNG plots go next to it.

usage: report.py RESULTS [--out DIR] [--title TITLE] [--no-plots]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
from collections import defaultdict
from typing import Dict, List, Optional

MODES = ("off", "pageflag", "freelist")
Run = Dict[str, float]


def parse(path: str) -> Dict[str, Dict[str, List[Run]]]:
    """{scenario: {mode: [run, ...]}} from the RESULT lines of path. Runs
    that failed (rc != 0) are left out and named on stderr."""
    runs: Dict[str, Dict[str, List[Run]]] = defaultdict(lambda: defaultdict(list))
    try:
        f = open(path)
    except OSError as e:
        sys.exit(f"report.py: cannot read {path}: {e.strerror}")
    with f:
        for n, line in enumerate(f, 1):
            if not line.startswith("RESULT "):
                continue
            kv = dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
            if "scenario" not in kv or kv.get("mode") not in MODES:
                sys.exit(f"{path}:{n}: a RESULT line without scenario= or a known mode=")
            run: Run = {}
            for k, v in kv.items():
                try:
                    run[k] = float(v)
                except ValueError:
                    pass
            if run.get("rc", 0) != 0:
                print(f"{path}:{n}: {kv['scenario']} ({kv['mode']}) failed (rc={kv.get('rc')}): left out",
                      file=sys.stderr)
                continue
            runs[kv["scenario"]][kv["mode"]].append(derive(run))
    if not runs:
        sys.exit(f"{path}: no RESULT lines")
    return runs


def derive(r: Run) -> Run:
    """Metrics computed from the raw counters of one run."""
    g = r.get
    if g("free_before_kib"):
        r["free_lost_permille"] = (r["free_before_kib"] - g("free_after_kib", 0)) * 1000 / r["free_before_kib"]
    # Made sensitive: whole blocks flipped, or stranded pages lent one by one.
    if "lent_pages" in r:
        r["lent_mib"] = r["lent_pages"] / 256
    r["made_s_mib"] = g("s_mib", 0) + g("lent_mib", 0)
    if r["made_s_mib"]:
        r["flushes_per_gib_sensitive"] = g("tlb_flush", 0) * 1024 / r["made_s_mib"]
    # Pages the page flag unmapped and flushed (asi_pageflag_async_free
    # counts frees, of any order; older results lack the page count).
    freed = g("tlb_flush_pages") if g("async_free") and "tlb_flush_pages" in r else None
    if freed:
        r["freed_mib"] = freed / 256
        r["flushes_per_gib_freed"] = g("tlb_flush", 0) * 262144 / freed
    # The OOM killer must have ended the grab for obtained_mib to mean capacity.
    if "obtained_mib" in r and g("grab_rc", 137) != 137:
        del r["obtained_mib"]
    r["psi_some_ms"] = g("psi_some_us", 0) / 1000
    return r


METRICS = [	# key, label, lower is better
    ("secs", "elapsed (s)", True),
    ("obtained_mib", "memory obtained before the OOM kill (MiB)", False),
    ("oom_kill", "OOM kills", True),
    ("stalls", "direct reclaim stalls", True),
    ("psi_some_ms", "PSI memory some (ms)", True),
    ("free_lost_permille", "free memory lost (permille)", True),
    ("ns_mib", "flipped to nonsensitive (MiB)", None),
    ("s_mib", "flipped to sensitive (MiB)", None),
    ("lent_mib", "stranded memory lent to sensitive allocations (MiB)", None),
    ("freed_mib", "freed through the page-flag queue (MiB)", None),
    ("tlb_flush", "ASI TLB flushes", True),
    ("flushes_per_gib_sensitive", "TLB flushes per GiB made sensitive (flipped or lent)", True),
    ("flushes_per_gib_freed", "TLB flushes per GiB freed through the queue", True),
    ("tlb_ipis", "TLB shootdown IPIs (all causes)", True),
    ("alloc_fail", "allocation-failure warnings", True),
    ("flip_p50_us", "flip latency p50 (us)", True),
    ("flip_p99_us", "flip latency p99 (us)", True),
    ("flip_irqsoff_max_us", "worst interrupts-off flip (us)", True),
    ("stranded_max_kib", "stranded nonsensitive, peak (KiB)", True),
    ("queue_hwm", "page-flag queue, peak (pages)", True),
]


def values(runs: List[Run], key: str) -> List[float]:
    return [r[key] for r in runs if key in r]


def median(runs: List[Run], key: str) -> Optional[float]:
    v = values(runs, key)
    return statistics.median(v) if v else None


def fmt(x: Optional[float]) -> str:
    if x is None:
        return "-"
    return f"{x:.0f}" if abs(x) >= 100 or x == int(x) else f"{x:.2f}"


def cell(runs: List[Run], key: str) -> str:
    v = values(runs, key)
    if not v:
        return "-"
    m = statistics.median(v)
    return fmt(m) if min(v) == max(v) else f"{fmt(m)} [{fmt(min(v))}–{fmt(max(v))}]"


def ratio(a: Optional[float], b: Optional[float]) -> str:
    return f"{a / b:.3f}" if a is not None and b else "-"


def flush_rates(runs):
    """TLB flushes per GiB: freelist's made sensitive, pageflag's freed
    through its queue, over all runs; None where nothing moved."""
    fl_f = sum(r.get("tlb_flush", 0) for m in runs.values() for r in m.get("freelist", []) if r.get("made_s_mib"))
    fl_g = sum(r.get("made_s_mib", 0) for m in runs.values() for r in m.get("freelist", [])) / 1024
    pf_f = sum(r.get("tlb_flush", 0) for m in runs.values() for r in m.get("pageflag", []) if r.get("freed_mib"))
    pf_g = sum(r.get("freed_mib", 0) for m in runs.values() for r in m.get("pageflag", [])) / 1024
    return (fl_f / fl_g if fl_g else None, pf_f / pf_g if pf_g else None)


def goals(runs) -> List[str]:
    """The two goals of the comparison, checked on the medians."""
    out = []
    for s, by_mode in sorted(runs.items()):
        off, fl = median(by_mode.get("off", []), "obtained_mib"), median(by_mode.get("freelist", []), "obtained_mib")
        if off and fl is not None:
            ok = fl >= 0.99 * off
            out.append(f"- {'met' if ok else 'MISSED'}: `{s}`: freelist obtained {fmt(fl)} MiB before the OOM kill, "
                       f"{fl / off:.3f} × asi=off's {fmt(off)} (goal ≥ 0.99).")
    a, b = flush_rates(runs)
    if a is not None and b:
        out.append(f"- {'met' if a <= b / 8 else 'MISSED'}: over all runs, freelist made {a:.1f} TLB flushes per GiB "
                   f"made sensitive (flipped or lent); pageflag {b:.1f} per GiB freed through its queue "
                   f"(ratio {a / b:.4f}, goal ≤ 0.125). The free lists flush once per batch of 2 MiB "
                   "pageblocks or of up to 64 lent pages, and the page flag once per free, so this holds "
                   "by construction once both move memory; the numbers say by how much.")
    else:
        out.append("- not measured: no run flipped memory to sensitive (freelist) or freed through the queue (pageflag).")
    return out


def conclusion(runs) -> str:
    """A paragraph stating what the medians support, and where pageflag holds up."""
    total = {m: sum(r.get("oom_kill", 0) for s in runs.values() for r in s.get(m, [])
                    if "obtained_mib" not in r) for m in MODES}
    stalls = {m: sum(r.get("stalls", 0) for s in runs.values() for r in s.get(m, [])) for m in MODES}
    psi = {m: sum(r.get("psi_some_ms", 0) for s in runs.values() for r in s.get(m, [])) for m in MODES}
    parts = [f"OOM kills outside the OOM scenario totalled {fmt(total['off'])} (asi=off), "
             f"{fmt(total['pageflag'])} (pageflag) and {fmt(total['freelist'])} (freelist); over all runs, "
             f"direct reclaim stalls {fmt(stalls['off'])}, {fmt(stalls['pageflag'])} and "
             f"{fmt(stalls['freelist'])}, and PSI memory-some time {fmt(psi['off'])}, "
             f"{fmt(psi['pageflag'])} and {fmt(psi['freelist'])} ms."]
    a, b = flush_rates(runs)
    if a and b:
        parts.append(f"Moving memory out of the restricted spaces cost the free lists {a:.1f} TLB flushes "
                     f"per GiB, the page flag {b:.0f}: {b / a:.0f} times as many"
                     + (", one per page freed." if abs(b - 262144) < 2622 else "."))
    for s, m in sorted(runs.items()):
        off, pf, fl = (median(m.get(x, []), "obtained_mib") for x in MODES)
        if off and fl is not None and pf is not None:
            parts.append(f"In `{s}`, user memory obtained before the OOM kill was {fl / off:.3f} × asi=off's "
                         f"with the free lists and {pf / off:.3f} × with the page flag.")
    even = []
    for s, m in sorted(runs.items()):
        pf, fl = m.get("pageflag", []), m.get("freelist", [])
        if not pf or not fl:
            continue
        worse = [k for k in ("oom_kill", "stalls", "psi_some_ms", "secs")
                 if (median(pf, k) or 0) > (median(fl, k) or 0)]
        if (median(pf, "obtained_mib") or 0) < (median(fl, "obtained_mib") or 0):
            worse.append("obtained_mib")
        if not worse:
            even.append(s)
    if even:
        parts.append("The page-flag approach does not fall behind the free lists (no more OOM kills, stalls, "
                     "stall time or elapsed time, no less memory obtained) in: "
                     + ", ".join(f"`{s}`" for s in even) + ".")
    return " ".join(parts)


def plot(runs, out: str) -> List[str]:
    """Clustered bars of the medians for a few metrics; the PNG names."""
    if not shutil.which("gnuplot"):
        return []
    made = []
    for key, label, _ in METRICS:
        rows = [(s, [median(m.get(mode, []), key) for mode in MODES]) for s, m in sorted(runs.items())]
        rows = [(s, v) for s, v in rows if any(x is not None for x in v)]
        if not rows or key not in ("obtained_mib", "psi_some_ms", "flushes_per_gib_sensitive",
                                   "flushes_per_gib_freed", "stalls", "oom_kill"):
            continue
        dat = os.path.join(out, f"{key}.dat")
        with open(dat, "w") as f:
            for s, v in rows:
                f.write(s + " " + " ".join("NaN" if x is None else f"{x}" for x in v) + "\n")
        png = f"{key}.png"
        # Only the modes that have the metric: a column of NaN alone (the
        # flushes per GiB are one mode's each) leaves gnuplot nothing to plot.
        cols = [(i + 2, "asi=off" if mode == "off" else mode) for i, mode in enumerate(MODES)
                if any(v[i] is not None for _, v in rows)]
        plots = ", ".join(f"'{dat}' using {c}" + (":xtic(1)" if n == 0 else "") + f" title '{t}'"
                          for n, (c, t) in enumerate(cols))
        script = (f"set terminal png size 800,400; set output '{os.path.join(out, png)}';"
                  f"set title '{label} (median)'; set style data histograms;"
                  "set style histogram clustered; set style fill solid 0.8; set key top left;"
                  f"set yrange [0:*]; set xtics nomirror; plot {plots}")
        if subprocess.run(["gnuplot", "-e", script]).returncode != 0:
            print(f"report.py: gnuplot failed on {key}: no plot for it", file=sys.stderr)
            if os.path.exists(os.path.join(out, png)):
                os.remove(os.path.join(out, png))
            continue
        made.append(png)
    return made


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", help="file with the RESULT lines")
    ap.add_argument("--out", default=".", help="directory for report.md and the plots")
    ap.add_argument("--title", default="ASI: OOM behaviour of the sensitivity free lists vs the page flag")
    ap.add_argument("--no-plots", action="store_true")
    args = ap.parse_args()
    runs = parse(args.results)
    os.makedirs(args.out, exist_ok=True)
    pngs = [] if args.no_plots else plot(runs, args.out)
    lines = [f"# {args.title}", ""]
    with open(args.results) as f:
        lines += [l[2:].rstrip() for l in f if l.startswith("# ")]
    lines += ["", "Median over the repeats, [min–max] when they differ; ratios are medians to asi=off's.", ""]
    for s, by_mode in sorted(runs.items()):
        n = ", ".join(f"{m} {len(by_mode.get(m, []))}" for m in MODES)
        lines += [f"## {s}", "", f"Runs: {n}.", "",
                  "| metric | asi=off | pageflag | freelist | pageflag/off | freelist/off |",
                  "|---|---|---|---|---|---|"]
        for key, label, _ in METRICS:
            cells = [cell(by_mode.get(m, []), key) for m in MODES]
            if all(c == "-" for c in cells):
                continue
            off = median(by_mode.get("off", []), key)
            lines.append(f"| {label} | " + " | ".join(cells) + " | "
                         + ratio(median(by_mode.get("pageflag", []), key), off) + " | "
                         + ratio(median(by_mode.get("freelist", []), key), off) + " |")
        lines.append("")
    lines += ["## Goals", ""] + goals(runs) + ["", "## Conclusion", "", conclusion(runs), ""]
    if pngs:
        lines += ["## Plots", ""] + [f"![{p}]({p})" for p in pngs] + [""]
    with open(os.path.join(args.out, "report.md"), "w") as f:
        f.write("\n".join(lines))
    print(os.path.join(args.out, "report.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
