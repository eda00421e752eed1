# SPDX-License-Identifier: GPL-2.0
"""Show where each CPU runs (unrestricted, or which restricted address
space), which space each task targets, and the ASI transition counters
(drgn script).

In the guest, on the running kernel; or on a dump (make vmcore):

    drgn -q -k -s build/out-asi/vmlinux debug/asi_transitions.py
    drgn -q -c build/vmcore/vmcore -s build/vmcore/vmlinux debug/asi_transitions.py

cpus     one line per online CPU: its curr_asi (the space it runs in, or
         "unrestricted"), the task it runs, asi_switching (loads or exits
         in progress there, NMIs nested) and its taints, what code that ran
         there may have left in caches and predictors since the last
         flushes (kernel/user/guest data, user/guest control).
tasks    one line per task with a target (between asi_start() and
         asi_end()): pid, comm, the target and whether the task is in a
         critical section.
counters asi_enter, asi_restore, the asi_exit_* and asi_flush_* vmstat
         counters.

Checks: a restricted CPU runs a task whose target is that space, or a
kernel thread in the userspace-class space of the mm it has loaded (a task
that slept there left the CPU in it: "kept" in the cpus list); a target
belongs to the mm the task runs on; a task in a critical section has a
target. A live kernel keeps running while drgn reads it, so a CPU that
switches meanwhile can show up as a mismatch: a failure is re-read once
(not in a dump, which does not change).

Exit status: 0 when every check holds, 1 when one fails, 2 when ASI is off,
the kernel has no debug info or the arguments are bad.
"""
import argparse
import functools
import sys
import time

from drgn import Object
from drgn.helpers.linux.cpumask import for_each_online_cpu
from drgn.helpers.linux.percpu import per_cpu
from drgn.helpers.linux.pid import for_each_task

from asi_drgn_common import (TRANSITION_EVENTS, asi_class_names, asi_vm_events, has, is_live,
                             require_asi, run, summary)

prog = globals()["prog"]
@functools.cache
def asi_ptr_type():
    return prog.pointer_type(prog.type("struct asi"))


def as_asi(obj: Object) -> Object:
    """obj as a pointer to the complete struct asi. In one build drgn 0.0.22
    left the type of a thread's target, which <linux/asi_types.h> only
    declares, incomplete ("'struct asi' has no member 'mm'")."""
    return Object(prog, asi_ptr_type(), value=obj.value_())


def space_name(asi: Object, classes: list) -> str:
    """'unrestricted', 'global nonsensitive' or '<class> of mm 0x... (pid N)'."""
    if not asi:
        return "unrestricted"
    if asi.value_() == prog["asi_global_nonsensitive"].address_of_().value_():
        return "global nonsensitive"
    class_id = asi.class_id.value_()
    name = classes[class_id] if class_id < len(classes) else f"class{class_id}"
    return f"{name} of mm {asi.mm.value_():#x}"


# ASI_TAINT_* bits, in order.
TAINTS = ("kernel-data", "user-data", "user-control", "guest-data", "guest-control")


def taint_names(taints: int) -> str:
    return ",".join(n for i, n in enumerate(TAINTS) if taints >> i & 1) or "-"


def snapshot() -> dict:
    """What the checks need, read as close together as drgn allows."""
    cpus = {}
    for cpu in for_each_online_cpu(prog):
        # read_(): drgn re-reads a reference each time it is used.
        asi = per_cpu(prog["curr_asi"], cpu).read_()
        task = per_cpu(prog["runqueues"], cpu).curr.read_()
        taints = per_cpu(prog["asi_taints"], cpu).value_() \
            if has(prog, "asi_taints") else None
        cpus[cpu] = (asi, task, as_asi(task.thread.asi_state.target),
                     per_cpu(prog["asi_switching"], cpu).value_(), taints,
                     per_cpu(prog["cpu_tlbstate"], cpu).loaded_mm.value_())
    tasks = []
    for task in for_each_task(prog):
        state = task.thread.asi_state
        if state.target or state.critical:
            tasks.append((task, as_asi(state.target), bool(state.critical)))
    return {"cpus": cpus, "tasks": tasks}


def kept(asi: Object, task: Object, loaded_mm: int) -> bool:
    """Whether the CPU stays in a process's space for a kernel thread."""
    return bool(asi) and not task.mm and asi.mm.value_() == loaded_mm and \
        asi.class_id.value_() == prog.constant("ASI_CLASS_USERSPACE").value_()


def violations(snap: dict) -> list:
    out = []
    for cpu, (asi, task, target, _, _, loaded_mm) in snap["cpus"].items():
        if asi and target.value_() != asi.value_() and not kept(asi, task, loaded_mm):
            out.append(f"cpu{cpu} runs in {asi.value_():#x} but its task "
                       f"{task.pid.value_()} targets {target.value_():#x}")
    for task, target, critical in snap["tasks"]:
        pid = task.pid.value_()
        if critical and not target:
            out.append(f"task {pid} is in a critical section without a target")
        mms = {task.mm.value_(), task.active_mm.value_()}
        if target and target.mm.value_() not in mms:
            out.append(f"task {pid} targets a space of mm {target.mm.value_():#x}, "
                       f"not of the mm it runs on")
    return out


def counters() -> list:
    """(/proc/vmstat name, total) of the transition counters."""
    return [(name, total) for enumerator, name, total in asi_vm_events(prog)
            if enumerator.startswith(TRANSITION_EVENTS)]


def main(argv: list) -> None:
    p = argparse.ArgumentParser(prog="asi_transitions.py", description=summary(__doc__))
    p.parse_args(argv)
    require_asi(prog, "asi_transitions", need_mode=False)
    classes = asi_class_names(prog)

    snap = snapshot()
    bad = violations(snap)
    if bad and is_live(prog):
        time.sleep(0.1)
        snap = snapshot()
        bad = violations(snap)

    print(f"{'cpu':<5} {'space':<40} {'task':>7} {'switching':>9} taints")
    for cpu, (asi, task, _, switching, taints, loaded_mm) in snap["cpus"].items():
        print(f"{cpu:<5} {space_name(asi, classes):<40} {task.pid.value_():>7} {switching:>9} "
              f"{'?' if taints is None else taint_names(taints)}"
              f"{' kept' if kept(asi, task, loaded_mm) else ''}")
    print(f"tasks with a target: {len(snap['tasks'])}")
    for task, target, critical in snap["tasks"]:
        print(f"  {task.pid.value_():>7} {task.comm.string_().decode():<16} "
              f"{space_name(target, classes):<40} {'critical' if critical else ''}")
    for name, total in counters():
        print(f"{name:<24} {total:>12}")
    for line in bad:
        print(f"VIOLATION: {line}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    run(main)
