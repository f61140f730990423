#!/usr/bin/env python3
"""`run-vm.sh batch`: boots one guest for an ordered list of cells of one
kernel and decides each of them, in one process (docs/guest.md "Batches").

    batch_run.py --kernel VMLINUZ --initrd CPIO --plan PLAN.json --out DIR
                 [--machine q35|pc|microvm] [--append ARGS]
                 [--accel kvm|tcg --accel-reason TEXT]

PLAN.json: {"cells": [{"cell_file": PATH, "out": DIR, "index": N,
"timeout": S}, ...]} in the order the guest runs them; N is the cell's line
in the initramfs's /cells/index. Each cell's DIR gets what `run-vm.sh cell`
writes (cell.json and the rest, decided by cell_result.cmd_evaluate); the
boot's own files (console.log, result.raw, qemu.stderr) and DIR/batch.json
go to --out. batch.json says for every cell whether it was decided in this
boot ("decided") or must run again in a fresh boot ("rerun", with the
reason: the batch ended before it, or the batch was stopped). Exit status 0
whenever the guest ran, 2 for a bad invocation or no usable accelerator,
128+N when signal N (SIGTERM, SIGINT, SIGHUP) stopped it: the guest is
ended and batch.json still written, with the cells it framed decided.
"""

import argparse
import base64
import binascii
import json
import os
import re
import resource
import shlex
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cell_result  # noqa: E402
import cellfile  # noqa: E402
import cell_run  # noqa: E402
import launcher  # noqa: E402

FRAME_RE = re.compile(rb"^@@egress-result ", re.M)
END_RE = re.compile(rb"^@@egress-end ", re.M)
BATCH_END_RE = re.compile(rb"^@@egress-batch-end v1 (.*)$", re.M)
CELL_MARK_RE = re.compile(r"^egress-init: batch cell (\d+) ", re.M)
POLL_S = 0.2
# The signal that told this batch to stop (the matrix was cancelled): the
# guest is ended, the cells it framed are decided as usual, the rest are
# left to the caller ("rerun", reason: stopped), never judged as a hang.
STOPPED = {"signal": None}


BadInvocation = cell_run.BadInvocation


def parse(argv):
    ap = cell_run.Parser(prog="run-vm.sh batch", what="batch")
    for opt in ("--kernel", "--initrd", "--plan", "--out"):
        ap.add_argument(opt, required=True)
    cell_run.add_guest_options(ap)
    a = ap.parse_args(argv)
    cell_run.check_guest_options(a, "batch", (a.kernel, a.initrd, a.plan))
    with open(a.plan, encoding="utf-8") as f:
        plan = json.load(f)
    cells = plan.get("cells") if isinstance(plan, dict) else None
    if not cells or not isinstance(cells, list):
        raise BadInvocation(f"batch: {a.plan}: no cells")
    for c in cells:
        if not isinstance(c, dict) or not isinstance(c.get("index"), int) or c["index"] < 1:
            raise BadInvocation(f"batch: {a.plan}: a cell without a positive index: {c!r}")
        try:
            c["id"], declared = cellfile.cell_info(c["cell_file"])
        except (ValueError, OSError, KeyError) as e:
            raise BadInvocation(f"batch: {a.plan}: cell {c!r}: {e}") from None
        c["declared"] = int(c.get("timeout") or declared)
        c["cell_file"] = os.path.realpath(c["cell_file"])
        c["out"] = os.path.abspath(c["out"])
    a.cells = cells
    a.boot_ptrace_scope = plan.get("boot_ptrace_scope")
    if a.boot_ptrace_scope not in (None, 3):
        raise BadInvocation(f"batch: {a.plan}: boot_ptrace_scope must be 3 when given")
    return a


def split_frames(raw):
    """[(header words as a dict, the frame's bytes)] in the order the frames
    begin on the port; a frame runs to the next one's start."""
    starts = [m.start() for m in FRAME_RE.finditer(raw)]
    out = []
    for i, s in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(raw)
        chunk = raw[s:end]
        be = BATCH_END_RE.search(chunk)
        if be:
            chunk = chunk[:be.start()]
        head = chunk.split(b"\n", 1)[0].decode("latin-1").rstrip("\r").split()
        words = dict(w.split("=", 1) for w in head[2:] if "=" in w)
        out.append((words, chunk))
    return out


def batch_end(raw, nonce):
    """The guest's last line, {"seq", "status", "detail"}, or None (the
    guest never got there). One with another nonce is not the guest's."""
    found = None
    for m in BATCH_END_RE.finditer(raw):
        words = dict(w.split("=", 1) for w in m.group(1).decode("latin-1").split() if "=" in w)
        if words.get("nonce") != nonce:
            continue
        detail = words.get("detail", "")
        try:
            detail = base64.b64decode(detail).decode("utf-8", "replace") if detail else ""
        except (ValueError, binascii.Error):
            detail = "(undecodable)"
        found = {"seq": int(words["seq"]) if words.get("seq", "").isdigit() else None,
                 "status": words.get("status"), "detail": detail}
    return found


def console_parts(console):
    """(the boot's part before the first cell, {seq: that cell's part})."""
    marks = [(int(m.group(1)), m.start()) for m in CELL_MARK_RE.finditer(console)]
    if not marks:
        return console, {}
    head = console[:marks[0][1]]
    parts = {}
    for i, (seq, start) in enumerate(marks):
        end = marks[i + 1][1] if i + 1 < len(marks) else len(console)
        parts.setdefault(seq, "")
        parts[seq] += console[start:end]
    return head, parts


def watch(argv, cells, out, accel):
    """Runs the guest; each cell has its own deadline (its scaled timeout),
    counted from the end of the previous cell's frame, so a hang costs one
    cell's timeout and not the batch's. Returns (rc or None when killed at a
    deadline, seconds, stderr, [seconds at which each frame ended])."""
    raw_path = os.path.join(out, "result.raw")
    t0 = time.monotonic()
    ended = []
    # Only the bytes added since the last poll are read (rereading the whole
    # port every 0.2 s was most of a 47-cell boot's host CPU), and a line cut
    # by a poll is kept for the next.
    pos, tail, n = 0, b"", 0
    with open(os.path.join(out, "qemu.stderr"), "wb") as err:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=err, stderr=err)
        rc = None
        last = t0
        while True:
            try:
                rc = p.wait(timeout=POLL_S)
                break
            except subprocess.TimeoutExpired:
                pass
            if STOPPED["signal"]:
                launcher.stop(p)
                rc = None
                break
            try:
                with open(raw_path, "rb") as f:
                    f.seek(pos)
                    new = f.read()
            except OSError:
                new = b""
            pos += len(new)
            data = tail + new
            cut = data.rfind(b"\n") + 1
            n += len(END_RE.findall(data[:cut]))
            tail = data[cut:]
            now = time.monotonic()
            while len(ended) < n:
                ended.append(now - t0)
                last = now
            k = min(len(ended), len(cells) - 1)
            if now - last > cells[k]["scaled"]:
                launcher.stop(p)
                rc = None
                break
    took = time.monotonic() - t0
    with open(os.path.join(out, "qemu.stderr"), encoding="utf-8", errors="replace") as f:
        stderr = f.read()
    return rc, took, stderr, ended


def assign(frames, n, nonce, end):
    """Which frames belong to which of the n planned cells, in order: a
    list of {"state": "framed" | "ended" | "rerun", "frames": [bytes],
    "reason", "out_of_order"}. framed: the cell has a complete frame with
    the boot's nonce and its seq (a duplicate is handed over too, so the
    decoder sees two frames: infra-error). ended: the boot ended in this
    cell (no complete frame: a panic, a hang, a boot failure), with any
    foreign frame after the last good one. rerun: the batch ended before
    the cell (the boot ended in an earlier one, or a reset failed)."""
    out, last_pos, broken = [], -1, None
    for i in range(n):
        seq = i + 1
        if broken:
            out.append({"state": "rerun", "frames": [], "reason": broken})
            continue
        mine = [(k, fr) for k, (h, fr) in enumerate(frames)
                if h.get("seq") == str(seq) and h.get("nonce") == nonce]
        if not mine and end and end["status"] == "reset-failed" and end["seq"] == i:
            broken = f"the reset after cell {i} of the boot failed: {end['detail'].strip()}"
            out.append({"state": "rerun", "frames": [], "reason": broken})
            continue
        # A frame the guest did not finish (the boot ended while it wrote
        # it) leaves its cell in progress, as does none.
        complete = any(END_RE.search(fr) for _, fr in mine)
        if not mine:
            mine = [(k, fr) for k, (h, fr) in enumerate(frames)
                    if k > last_pos and not (h.get("seq", "").isdigit() and
                                             h.get("nonce") == nonce and int(h["seq"]) < seq)]
        order_ok = all(k > last_pos for k, _ in mine)
        if complete:
            # Whatever else came between the previous cell's frame and this
            # one's (a foreign frame, another nonce) was written while this
            # cell ran, and after the last cell's frame by the last cell:
            # the cell gets it too, so its decoder sees more than one frame
            # (infra-error), as in a boot of its own.
            top = len(frames) - 1 if seq == n else max(k for k, _ in mine)
            own = {k for k, _ in mine}
            mine += [(k, frames[k][1]) for k in range(last_pos + 1, top + 1) if k not in own]
            mine.sort(key=lambda x: x[0])
        if mine:
            last_pos = max(k for k, _ in mine)
        out.append({"state": "framed" if complete else "ended",
                    "frames": [fr for _, fr in mine], "reason": None,
                    "out_of_order": complete and not order_ok})
        if not complete:
            broken = f"the boot ended in cell {seq} before this cell ran"
    return out


def force_outcome(out, outcome, reason):
    """Overrides a cell's decided outcome when the batch's framing alone
    condemns it (a frame out of its planned order): never to a better one."""
    path = os.path.join(out, "cell.json")
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    data["outcome"], data["reason"] = outcome, f"{reason} (was: {data['outcome']}: {data['reason']})"
    data["got"] = None
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    os.replace(path + ".tmp", path)


def write_host_cpu(out):
    """DIR/host-cpu: this process's own CPU seconds (user + system; QEMU,
    a child, is not in it): the host's work for the boot's cells."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.path.join(out, "host-cpu"), "w", encoding="utf-8") as f:
        f.write(f"{ru.ru_utime + ru.ru_stime:.3f}\n")


def batch_rerun_line(a):
    parts = [cell_run.RUN_VM, "batch", "--kernel", a.kernel, "--initrd", a.initrd,
             "--plan", os.path.abspath(a.plan), "--out", a.out, "--machine", a.machine,
             "--supervisor", a.supervisor]
    if a.append:
        parts += ["--append", a.append]
    return shlex.join(parts)


def run(a):
    os.makedirs(a.out, exist_ok=True)
    a.out = os.path.abspath(a.out)
    a.kernel, a.initrd = os.path.realpath(a.kernel), os.path.realpath(a.initrd)
    for name in ("console.log", "result.raw", "qemu.stderr", "batch.json"):
        if os.path.exists(os.path.join(a.out, name)):
            os.unlink(os.path.join(a.out, name))
    version = launcher.qemu_version()
    if a.accel:
        accel, reason = a.accel, a.accel_reason or "given by the caller"
    else:
        choice = launcher.choose_accelerator(a.kernel, a.machine, os.path.join(a.out, "canary"))
        accel, reason = choice["accelerator"], choice["reason"]
        print(launcher.accel_line(choice), file=sys.stderr)
    for c in a.cells:
        c["scaled"] = launcher.scaled_timeout(accel, c["declared"])
    nonce = os.urandom(16).hex()
    append = (f"egress.cells={','.join(str(c['index']) for c in a.cells)} "
              f"egress.deadlines={','.join(str(launcher.guest_deadline(c['scaled'])) for c in a.cells)} "
              f"egress.nonce={nonce}" +
              (" egress.boot_ptrace_scope=3" if a.boot_ptrace_scope else "") +
              (f" {a.append}" if a.append else ""))
    console_path = os.path.join(a.out, "console.log")
    argv = launcher.qemu_argv(a.kernel, a.initrd, console_path, os.path.join(a.out, "result.raw"),
                              machine=a.machine, accel=accel, append=append)
    if len(launcher.kernel_cmdline(append)) > 2000:
        raise BadInvocation(f"batch: {len(a.cells)} cells make a kernel command line of "
                            f"{len(launcher.kernel_cmdline(append))} bytes (x86 takes 2048)")
    rc, took, _, ended = watch(argv, a.cells, a.out, accel)
    for name in ("console.log", "result.raw"):
        open(os.path.join(a.out, name), "ab").close()
    with open(os.path.join(a.out, "result.raw"), "rb") as f:
        raw = f.read()
    console = cell_result.read_text(console_path)
    head, parts = console_parts(console)
    frames = split_frames(raw)
    end = batch_end(raw, nonce)
    record = {"nonce": nonce, "qemu_cmdline": shlex.join(argv), "qemu_exit": rc,
              "timed_out": rc is None, "wall_s": round(took, 3), "end": end,
              "boot_s": None, "rerun": batch_rerun_line(a), "cells": [],
              "stopped": STOPPED["signal"]}
    t_prev = 0.0
    for i, (c, plan) in enumerate(zip(a.cells, assign(frames, len(a.cells), nonce, end))):
        seq = i + 1
        entry = {"cell": c["id"], "seq": seq, "out": c["out"]}
        record["cells"].append(entry)
        if plan["state"] == "ended" and STOPPED["signal"]:
            plan = {"state": "rerun", "reason": f"the batch was stopped ({STOPPED['signal']}) "
                    f"while this cell ran"}
        if plan["state"] == "rerun":
            entry.update(state="rerun", reason=plan["reason"])
            continue
        os.makedirs(c["out"], exist_ok=True)
        for name in cell_run.OUTPUTS:
            if os.path.exists(os.path.join(c["out"], name)):
                os.unlink(os.path.join(c["out"], name))
        with open(os.path.join(c["out"], "result.raw"), "wb") as f:
            f.write(b"".join(plan["frames"]))
        with open(os.path.join(c["out"], "console.log"), "w", encoding="utf-8") as f:
            f.write(head + parts.get(seq, ""))
        t_end = ended[i] if i < len(ended) else took
        done_here = plan["state"] == "framed"
        ev = argparse.Namespace(
            out=c["out"], cell_file=c["cell_file"], nonce=nonce, kernel=a.kernel,
            initrd=a.initrd, qemu_version=version, accel=accel, accel_reason=reason,
            qemu_cmdline=shlex.join(argv), rerun=cell_run.rerun_line(argparse.Namespace(
                kernel=a.kernel, initrd=a.initrd, cell_file=c["cell_file"], out=c["out"],
                declared=c["declared"], machine=a.machine, append=a.append, qemu_extra=[],
                supervisor=a.supervisor)),
            qemu_rc=0 if done_here and rc is None else
            (124 if rc is None else launcher.shell_status(rc)),
            timed_out=int(rc is None and not done_here), timeout=c["scaled"],
            run_s=max(0.0, t_end - t_prev), supervisor=a.supervisor)
        cell_result.cmd_evaluate(ev)
        t_prev = t_end
        if plan.get("out_of_order"):
            force_outcome(c["out"], "infra-error", f"cell {seq}'s frame came after a later "
                          "cell's on the result port (out of order)")
        entry.update(state="decided", position=seq)
        if i + 1 == len(a.cells) and not (end and end["status"] == "done"):
            entry["note"] = "the guest wrote no batch end after the last cell"
    if a.cells and os.path.exists(os.path.join(a.cells[0]["out"], "cell.json")):
        with open(os.path.join(a.cells[0]["out"], "cell.json"), encoding="utf-8") as f:
            record["boot_s"] = json.load(f).get("boot_s")
    with open(os.path.join(a.out, "batch.json.tmp"), "w", encoding="utf-8") as f:
        json.dump(record, f, indent=2)
        f.write("\n")
    os.replace(os.path.join(a.out, "batch.json.tmp"), os.path.join(a.out, "batch.json"))
    write_host_cpu(a.out)
    reruns = sum(e["state"] == "rerun" for e in record["cells"])
    print(f"batch of {len(a.cells)} cells in one boot: {len(a.cells) - reruns} decided, "
          f"{reruns} to run again in fresh boots [{took:.1f} s]")


def on_stop(signum, _frame):
    STOPPED["signal"] = signal.Signals(signum).name


def main(argv=None):
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_stop)
    try:
        run(parse(sys.argv[1:] if argv is None else argv))
    except (BadInvocation, OSError, ValueError) as e:
        print(f"run-vm.sh: {e}", file=sys.stderr)
        return 2
    except launcher.LaunchError as e:
        print(f"run-vm.sh: batch: {e}", file=sys.stderr)
        return 2
    return 128 + signal.Signals[STOPPED["signal"]].value if STOPPED["signal"] else 0


if __name__ == "__main__":
    sys.exit(main())
