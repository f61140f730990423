#!/usr/bin/env python3
"""Host side of one appliance cell (docs/guest.md): reads a cell file, decodes
the guest's framed result and decides the cell's outcome.

    cell_result.py evaluate --out DIR --cell-file FILE --nonce HEX ... (see --help)
        writes DIR/cell.json (and DIR/report.json, DIR/guest/*), prints one line

Stdlib only. The outcome is decided here and nowhere else, so run-vm.sh cell
(cell_run.py, which calls cmd_evaluate in-process) and the matrix runner agree
on it.
"""
import argparse
import base64
import binascii
import gzip
import hashlib
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bundle as B  # noqa: E402
import oracle as O  # noqa: E402 - the ground truth, apart from the outcome it feeds
from cellfile import read_cell_file  # noqa: E402
from contract import LOUD_OUTCOMES, VERDICTS, sha256_file  # noqa: E402

EXIT_VERDICT = {0: "pass", 1: "fail", 3: "capability-error"}
SPLAT_RE = re.compile(r"WARNING:|BUG:|Oops|hung task|blocked for more than|Kernel panic")
PANIC_RE = re.compile(r"Kernel panic - not syncing")
INIT_MARK = "egress-init: started at uptime"


class FrameError(Exception):
    pass


def parse_frame(raw, nonce):
    """Decodes the framed result. Returns (frame_nonce, cell, sections)."""
    lines = [ln.rstrip("\r") for ln in raw.decode("latin-1").split("\n")]
    while lines and not lines[-1]:
        lines.pop()  # a frame cut short must read as truncated
    starts = [i for i, ln in enumerate(lines) if ln.startswith("@@egress-result ")]
    if not starts:
        raise FrameError("no framed result on the result port")
    if len(starts) > 1:
        raise FrameError(f"{len(starts)} framed results on the result port (want one)")
    head = dict(w.split("=", 1) for w in lines[starts[0]].split()[2:] if "=" in w)
    if lines[starts[0]].split()[1] != "v1":
        raise FrameError(f"unknown frame version in {lines[starts[0]]!r}")
    frame_nonce = head.get("nonce", "")
    sections, i = {}, starts[0] + 1
    while True:
        if i >= len(lines):
            raise FrameError("framed result truncated (no @@egress-end)")
        ln = lines[i]
        if ln.startswith("@@egress-end "):
            if ln.split()[-1] != f"nonce={frame_nonce}":
                raise FrameError("end line nonce differs from the begin line")
            break
        if not ln.startswith("@@section "):
            raise FrameError(f"unexpected line {i + 1} in the frame: {ln[:80]!r}")
        parts = ln.split()
        if len(parts) not in (4, 5) or (len(parts) == 5 and parts[4] != "gzip"):
            raise FrameError(f"bad section header {ln[:80]!r}")
        name, size, digest = parts[1:4]
        body, i = [], i + 1
        while i < len(lines) and lines[i] != f"@@end {name}":
            body.append(lines[i])
            i += 1
        if i >= len(lines):
            raise FrameError(f"section {name} truncated")
        try:
            data = base64.b64decode("".join(body), validate=True)
            if len(parts) == 5:
                data = gzip.decompress(data)
        except (binascii.Error, ValueError, OSError, EOFError) as e:
            raise FrameError(f"section {name}: bad base64 or gzip: {e}") from e
        if len(data) != int(size) or hashlib.sha256(data).hexdigest() != digest:
            raise FrameError(f"section {name}: size or sha256 differs (corrupted)")
        sections[name] = data
        i += 1
    return frame_nonce, head.get("cell", ""), sections


def kv_lines(data):
    out = {}
    for ln in data.decode("utf-8", "replace").splitlines():
        if "=" in ln:
            k, v = ln.split("=", 1)
            out[k] = v
    return out


def parse_features(data):
    feats = {}
    for ln in data.decode("utf-8", "replace").splitlines():
        if "=" not in ln:
            continue
        name, rest = ln.split("=", 1)
        word, _, detail = rest.partition(" ")
        feats[name] = {"available": word == "yes", "detail": detail}
    return feats


def parse_preconditions(data):
    out = []
    for ln in data.decode("utf-8", "replace").splitlines():
        parts = ln.split(" ", 2)
        if len(parts) < 2 or parts[0] not in ("pass", "fail", "info", "error"):
            continue
        out.append({"status": parts[0], "name": parts[1],
                    "detail": parts[2] if len(parts) > 2 else ""})
    return out


def find_splats(*texts):
    seen, out = set(), []
    for text in texts:
        for ln in text.splitlines():
            if SPLAT_RE.search(ln):
                key = re.sub(r"^\[\s*[0-9.]+\]\s*", "", ln.strip())
                if key not in seen:
                    seen.add(key)
                    out.append(ln.strip())
    return out


def read_text(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return ""


# The supervisor's --report-fd records (docs/design.md "Report"): a header
# line "egress-supervisor-report-record/1 provisional|final BYTES", then
# exactly BYTES of JSON. The report is the last record that is whole.
RECORD_MAGIC = b"egress-supervisor-report-record/1"


def report_from_channel(data):
    """(JSON bytes or None, [notes]) from the report section: a record stream
    from --report-fd (the last whole record), or a plain JSON file."""
    if not data.startswith(RECORD_MAGIC):
        return data, []
    pos, last, kinds, notes = 0, None, [], []
    while pos < len(data):
        nl = data.find(b"\n", pos)
        head = data[pos:nl].split(b" ") if nl >= 0 else []
        if len(head) != 3 or head[0] != RECORD_MAGIC or not head[2].isdigit():
            notes.append(f"report channel: unreadable record header at byte {pos} ignored, "
                         "with everything after it")
            break
        end = nl + 1 + int(head[2])
        if end > len(data):
            notes.append(f"report channel: last record ({head[1].decode('ascii', 'replace')}) "
                         "is short: the supervisor stopped while writing it")
            break
        last = data[nl + 1:end]
        kinds.append(head[1].decode("ascii", "replace"))
        pos = end
    if kinds:
        notes.append(f"report channel: {len(kinds)} record(s), last {kinds[-1]}")
    return last, notes


def load_report(sec):
    """(report dict or None, [notes])."""
    if "report" not in sec:
        return None, ["the supervisor wrote no report"]
    body, notes = report_from_channel(sec["report"])
    if body is None:
        return None, notes + ["the report channel holds no whole record"]
    try:
        report = json.loads(body)
    except ValueError as e:
        return None, notes + [f"report is not JSON: {e}"]
    if not isinstance(report, dict):
        return None, notes + ["report is not a JSON object"]
    if report.get("complete") is not True:
        notes.append("report is provisional (complete=false)")
    return report, notes


def judge_report(sv_exit, killed, report, expected, bundle=None):
    """The trust rule (docs/guest.md "Outcomes"): the exit status and the
    report must agree, and neither alone makes a verdict. Returns (verdict,
    None) or (None, (outcome, reason)) when the cell can never be ok.
    - A supervisor that did not finish (killed by the cell, killed by anyone
      else: exit status 128+N, or none) vouches for nothing: its verdict is
      capability-error, and the only report it may have left is the
      provisional one (complete=false, capability-error). Anything else on
      the channel was not written by a supervisor that finished: never
      believed.
    - Otherwise the exit status is the verdict (0 pass, 1 fail, 3
      capability-error) and the report must be complete with the same
      verdict; only exit 3 may come with a provisional report or none (the
      report could not be written).
    - BUNDLE (bundle.load) names the exit statuses (its manifest; default
      0/1/3); a bundle with report = none is judged by its exit status
      alone here, and by the ground truth in the oracle."""
    exits = bundle["exit"] if bundle else EXIT_VERDICT
    finished = not killed and sv_exit in exits
    by_exit = exits[sv_exit] if finished else "capability-error"
    if bundle and bundle["report"] == "none":
        # Nothing on the channel is believed or needed: the exit status
        # is the verdict, and one outside the manifest vouches for nothing.
        return by_exit, None
    got = report.get("verdict") if report else None
    complete = report.get("complete") if report else None
    if not finished:
        how = f"killed by the cell ({killed})" if killed else f"exit status {sv_exit}"
        if report is None:
            return None, ("mismatch", f"expected {expected}, got no verdict: the supervisor did not "
                          f"finish ({how}) and left no report (never ok)")
        if complete is not False or got != "capability-error":
            outcome = "false-green" if got == "pass" else "mismatch"
            return None, (outcome, f"the supervisor did not finish ({how}) but the report says "
                          f"complete={json.dumps(complete)} verdict {got!r}: a report that "
                          "disagrees with the exit status is never believed")
        return by_exit, None
    if report is None:
        if by_exit != "capability-error":
            return None, ("mismatch", f"exit status {sv_exit} says {by_exit} but there is no report "
                          "(never ok)")
        return by_exit, None
    if got != by_exit or (complete is not True and by_exit != "capability-error"):
        claims_pass = "pass" in (got, by_exit)
        outcome = "false-green" if claims_pass and expected != "pass" else "mismatch"
        return None, (outcome, f"exit status {sv_exit} disagrees with report verdict {got!r} "
                      f"(complete={json.dumps(complete)})")
    return by_exit, None


def sink_err_problem(sec):
    """The sink's stderr (the sink_err section) is empty after a clean run;
    anything there is an error of the ground truth: a record it could not
    write (ENOSPC, EIO, a short write: "cannot write a record", "records
    lost"), an unproven stop, a failed accept or recvfrom. init makes those
    infra-error itself (the sink's exit status); this is the host's own
    check, so an init that missed it never has a cell judged on a record
    with holes (hostile review h-attack34). Returns the reason, or None."""
    text = sec.get("sink_err", b"").decode(errors="replace")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return None
    marks = ("records lost", "cannot write a record", "stop unproven")
    first = next((ln for m in marks for ln in lines if m in ln), lines[0])
    return (f"the sink's record is not the ground truth: its stderr (sink_err, "
            f"{len(lines)} line(s)) says: {first}")


def decide(a, cell, expected, frame, console):
    """Returns (outcome, reason, got, supervisor_exit)."""
    if a.accel == "kvm" and INIT_MARK not in console:
        # The run's canary booted under KVM, so a cell that does not reach
        # init under KVM is the accelerator's failure, not the kernel's or
        # the scenario's: said as such, and never retried under TCG.
        why = (f"guest did not reach init within {a.timeout} s" if a.timed_out
               else f"qemu exited {a.qemu_rc} before the guest reached init")
        return "infra-error", f"under KVM: {why} (the KVM canary had booted)", None, None
    if a.timed_out:
        done = "a complete result was written" if frame.get("sections") else "no complete result"
        return "timeout", f"guest did not power off within {a.timeout} s ({done})", None, None
    # Only a cell without a complete frame: a guest that panicked before it
    # could write one. The console also carries what a cell's own
    # processes make the kernel print (a file name in a warning, a mount's
    # options in an error: review h-attack39's forged "Kernel panic" line
    # filed a cell `panic` and hid its verdict); a panic after a complete
    # frame is still listed among the splats.
    if "sections" not in frame and PANIC_RE.search(console):
        line = next(ln for ln in console.splitlines() if PANIC_RE.search(ln))
        return "panic", line.strip(), None, None
    if "sections" not in frame:
        if not console.strip() and a.qemu_rc != 0:
            return "infra-error", f"qemu exited {a.qemu_rc} before the guest printed anything", None, None
        if INIT_MARK not in console:
            return "boot-fail", f"guest never reached init ({frame['error']})", None, None
        return "infra-error", f"guest init ran but {frame['error']}", None, None
    if frame["nonce"] != a.nonce:
        return "infra-error", f"result nonce {frame['nonce']!r} is not this run's {a.nonce!r}", None, None
    sec = frame["sections"]
    meta = kv_lines(sec.get("meta", b""))
    status = kv_lines(sec.get("status", b""))
    if frame["cell"] != cell or meta.get("cell") != cell:
        return "infra-error", f"result is for cell {frame['cell']!r}, not {cell!r}", None, None
    want_sha = sha256_file(a.cell_file)
    if meta.get("cell_sha256") not in ("", want_sha) or ("cell" in sec and hashlib.sha256(sec["cell"]).hexdigest() != want_sha):
        return ("infra-error", "the cell file in the initramfs differs from --cell-file "
                "(rebuild the initramfs)", None, None)
    st, why = status.get("status", ""), status.get("reason", "")
    # init sends the cell and its digest whenever it found the cell; the
    # oracle reads the policy from that section, so a frame without it
    # (the third review's forgery) would be judged against no policy at all.
    if st != "infra-error" and ("cell" not in sec or meta.get("cell_sha256") != want_sha):
        return ("infra-error", f"the result (status {st!r}) has no cell section or no "
                "cell_sha256 in its meta: every frame of guest init carries both, so this one "
                "is not init's (never judged)", None, None)
    sv_exit = int(status["supervisor_exit"]) if status.get("supervisor_exit", "").isdigit() else None
    bundle = getattr(a, "bundle", None)
    if bundle and meta.get("bundle_digest") != bundle["digest"]:
        return ("infra-error", f"the supervisor bundle in the initramfs "
                f"({meta.get('bundle_name')!r}, digest {meta.get('bundle_digest')!r}) is not "
                f"the one evaluated with ({bundle['name']!r}, {bundle['digest']}): rebuild the "
                "initramfs or pass its --supervisor", None, None)
    if st in ("supervisor-hang", "timeout"):
        # No verdict, but a complete frame: what the ground truth shows
        # still decides (a timeout an agent chose hid its arrivals).
        esc = O.escapes(sec.get("cell", b""), sec)
        if esc:
            return ("oracle-mismatch", f"{'; '.join(esc)}; and the supervisor did not finish "
                    f"({st}: {why})", None, sv_exit)
    if st == "supervisor-hang":
        seen = "guest/hang lists each process of the cell (state, wchan, stack) and the " \
            "supervisor's last output" if "hang" in sec else "the guest sent no hang record"
        return "supervisor-hang", f"{why} (expected {expected}; {seen})", None, sv_exit
    if st in ("skipped", "precondition-error", "infra-error", "timeout"):
        return st, why, None, sv_exit
    if st != "ran":
        return "infra-error", f"guest status {st!r}: {why}", None, sv_exit
    sink_bad = sink_err_problem(sec)
    if sink_bad:
        return "infra-error", sink_bad, None, sv_exit
    if expected not in VERDICTS:
        return "infra-error", f"cell file expect={expected!r}: want one of {', '.join(VERDICTS)}", None, sv_exit
    if sv_exit == 2:
        return "infra-error", "the supervisor rejected its invocation (exit 2)", None, sv_exit
    kind = bundle["report"] if bundle else "appliance-v1"
    if kind == "none":
        report, notes = None, [f"bundle {bundle['name']} writes no report: judged by exit status "
                               f"{sv_exit} (its manifest) and the ground truth"]
    else:
        report, notes = load_report(sec)
    killed = status.get("supervisor_killed")
    if killed:
        notes.append(f"supervisor killed by the cell ({killed})")
    cell_keys = kv_lines(sec.get("cell", b""))
    finished = cell_keys.get("expect_finished")
    if not killed and cell_keys.get("kill_supervisor_after") and finished in VERDICTS:
        # The cell's kill did not land: the supervisor ended first (a
        # design that ends the run with the agent's first process, or at
        # its first violation). The kill is not there to judge; the run is,
        # by the verdict the scenario derives for a supervisor that finished.
        notes.append(f"the supervisor ended before kill_supervisor_after="
                     f"{cell_keys['kill_supervisor_after']}: judged by expect_finished="
                     f"{finished} (expect={expected} holds for a kill that lands)")
        expected = finished
    got, never_ok = judge_report(sv_exit, killed, report, expected, bundle)
    if never_ok:
        outcome, why = never_ok
        return outcome, "; ".join([why] + notes), report.get("verdict") if report else None, sv_exit
    if report is None and kind != "none":
        notes.append(f"verdict taken from exit status {sv_exit}")
    if got == expected:
        disagreement = O.oracle_check(cell, dict(sec, _verdict=got), report, kind)
        if disagreement:
            return "oracle-mismatch", disagreement, got, sv_exit
        return "ok", "; ".join([f"verdict {got} as expected"] + notes), got, sv_exit
    if got == "pass" and cell_keys.get("expect_untried") == "pass":
        # untried=pass (docs/supervisor-contract.md): pass is right too when
        # the agent ran to its end and its own log shows it tried nothing
        # undeclared; every other check of the ground truth still holds.
        why_not = O.untried_problems(sec.get("cell", b""), sec)
        if why_not:
            return ("false-green", f"supervisor said pass, expected {expected}; expect_untried="
                    f"pass does not hold: {'; '.join(why_not[:2])}", got, sv_exit)
        disagreement = O.oracle_check(cell, dict(sec, _verdict=got), report, kind)
        if disagreement:
            return "oracle-mismatch", disagreement, got, sv_exit
        return "ok", "; ".join([f"verdict pass for expected {expected} (expect_untried=pass): "
                                "the agent ran to its end and tried nothing undeclared"] + notes), \
            got, sv_exit
    if got == "pass":
        return "false-green", f"supervisor said pass, expected {expected}", got, sv_exit
    return "mismatch", "; ".join([f"expected {expected}, got {got}"] + notes), got, sv_exit


def oracle_summary(frame, sec, bundle=None, got=None):
    """The oracle's facts for cell.json (None when the supervisor never ran)."""
    if "sections" not in frame or kv_lines(sec.get("status", b"")).get("status") != "ran":
        return None
    kind = bundle["report"] if bundle else "appliance-v1"
    report = load_report(sec)[0] if kind != "none" else None
    return O.oracle_evaluate(sec.get("cell", b""), dict(sec, _verdict=got), report, kind)


def cmd_evaluate(a):
    sv = getattr(a, "supervisor", None)
    a.bundle = B.load(sv) if sv else None
    single, multi = read_cell_file(a.cell_file)
    cell = single.get("cell", "")
    expected = single.get("expect")
    console = read_text(os.path.join(a.out, "console.log"))
    raw_path = os.path.join(a.out, "result.raw")
    raw = open(raw_path, "rb").read() if os.path.exists(raw_path) else b""
    frame = {}
    try:
        frame["nonce"], frame["cell"], frame["sections"] = parse_frame(raw, a.nonce)
    except FrameError as e:
        frame = {"error": str(e)}
    outcome, reason, got, sv_exit = decide(a, cell, expected, frame, console)
    sec = frame.get("sections", {})
    if sec:
        gdir = os.path.join(a.out, "guest")
        os.makedirs(gdir, exist_ok=True)
        for name, data in sec.items():
            with open(os.path.join(gdir, name), "wb") as f:
                f.write(data)
    report_path = os.path.join(a.out, "report.json")
    body = report_from_channel(sec["report"])[0] if "report" in sec else None
    if body is not None:
        with open(report_path, "wb") as f:
            f.write(body)
    elif os.path.exists(report_path):
        os.unlink(report_path)
    meta = kv_lines(sec.get("meta", b""))
    try:
        boot_s = float(meta["uptime_init"])
    except (KeyError, ValueError):
        boot_s = None
    masks = multi.get("mask", [])
    result = {
        "cell": cell,
        "scenario": single.get("scenario"),
        "kernel": {"path": os.path.abspath(a.kernel), "sha256": sha256_file(a.kernel),
                   "release": meta.get("kernel_release")},
        "initrd": {"path": os.path.abspath(a.initrd), "sha256": sha256_file(a.initrd)},
        "qemu_version": a.qemu_version,
        "accelerator": a.accel,
        "accelerator_reason": getattr(a, "accel_reason", None),
        "qemu_cmdline": a.qemu_cmdline,
        "qemu_exit": a.qemu_rc,
        "nonce": a.nonce,
        "boot_s": boot_s,
        "run_s": round(a.run_s, 3),
        "expected": expected,
        "expected_why": single.get("expect_why"),
        "got": got,
        "supervisor_exit": sv_exit,
        "outcome": outcome,
        "reason": reason,
        "emulations": [f"syscall mask {m} (emulation)" for m in masks],
        "features": parse_features(sec["features"]) if "features" in sec else None,
        "preconditions": parse_preconditions(sec["preconditions"]) if "preconditions" in sec else None,
        "splats": find_splats(sec.get("dmesg", b"").decode("utf-8", "replace"), console),
        "oracle": oracle_summary(frame, sec, a.bundle, got),
        "bundle": B.record(a.bundle) if a.bundle else None,
        "bundle_in_guest": {"name": meta.get("bundle_name"), "digest": meta.get("bundle_digest")},
        "rerun": a.rerun,
    }
    tmp = os.path.join(a.out, "cell.json.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    os.replace(tmp, os.path.join(a.out, "cell.json"))
    emu = f" [{'; '.join(result['emulations'])}]" if masks else ""
    splat = f" SPLATS: {len(result['splats'])}" if result["splats"] else ""
    print(f"{cell}: {outcome.upper() if outcome in LOUD_OUTCOMES else outcome}"
          f" (expected {expected}, got {got}) {reason}{emu}{splat}"
          f" [boot {boot_s if boot_s is not None else '?'} s, run {a.run_s:.1f} s]")


def main():
    ap = argparse.ArgumentParser(description="host side of one appliance cell")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("evaluate")
    for opt in ("--out", "--cell-file", "--nonce", "--kernel", "--initrd", "--qemu-version",
                "--accel", "--qemu-cmdline", "--rerun"):
        p.add_argument(opt, required=True)
    p.add_argument("--qemu-rc", type=int, required=True)
    p.add_argument("--timed-out", type=int, choices=(0, 1), required=True)
    p.add_argument("--timeout", type=int, required=True)
    p.add_argument("--run-s", type=float, required=True)
    p.add_argument("--accel-reason", default=None)
    p.add_argument("--supervisor", default=None,
                   help="the bundle (file or directory) the initramfs holds: its digest must "
                        "match the guest's, its manifest says how to judge")
    a = ap.parse_args()
    cmd_evaluate(a)


if __name__ == "__main__":
    main()
