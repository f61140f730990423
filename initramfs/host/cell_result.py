#!/usr/bin/env python3
"""Host side of one appliance cell (docs/guest.md): reads a cell file, decodes
the guest's framed result and decides the cell's outcome.

    cell_result.py info CELL-FILE
        prints cell=ID, scenario=NAME, expect=VERDICT, timeout=SECONDS (shell-safe lines)
    cell_result.py evaluate --out DIR --cell-file FILE --nonce HEX ... (see --help)
        writes DIR/cell.json (and DIR/report.json, DIR/guest/*), prints one line

Stdlib only. The outcome is decided here and nowhere else, so run-vm.sh and the
matrix runner agree on it.
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

CELL_ID_RE = re.compile(r"^[A-Za-z0-9._=,+-]+$")
VERDICTS = ("pass", "fail", "capability-error")
EXIT_VERDICT = {0: "pass", 1: "fail", 3: "capability-error"}
SPLAT_RE = re.compile(r"WARNING:|BUG:|Oops|hung task|blocked for more than|Kernel panic")
PANIC_RE = re.compile(r"Kernel panic - not syncing")
INIT_MARK = "egress-init: started at uptime"
DEFAULT_TIMEOUT = 60

# Outcomes, loudest first (docs/guest.md).
OUTCOMES = ("false-green", "oracle-mismatch", "mismatch", "precondition-error", "timeout",
            "panic", "boot-fail", "infra-error", "skipped", "ok")


def read_cell_file(path):
    """The cell file as {key: value} for single keys and {key: [values]} for
    repeated ones. Host-side it is lenient: the guest rejects unknown keys."""
    single, multi = {}, {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f.read().split("\n"):
            if not line or line.startswith("#") or "=" not in line:
                continue
            key, val = line.split("=", 1)
            multi.setdefault(key, []).append(val)
            single.setdefault(key, val)
    return single, multi


def cmd_info(args):
    single, _ = read_cell_file(args.cell_file)
    cell = single.get("cell", "")
    if not CELL_ID_RE.match(cell):
        sys.exit(f"{args.cell_file}: cell={cell!r}: want an id of [A-Za-z0-9._=,+-]")
    timeout = single.get("timeout", str(DEFAULT_TIMEOUT))
    if not timeout.isdigit() or int(timeout) == 0:
        sys.exit(f"{args.cell_file}: timeout={timeout!r}: want whole seconds > 0")
    print(f"cell={cell}")
    print(f"timeout={timeout}")


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


def oracle_check(cell, sections, report):
    """Hook for issue 4's ground-truth oracle: returns None when the agent's
    attempt log and the sink's record agree with the report, else a one-line
    disagreement (outcome oracle-mismatch). Not implemented yet: agrees."""
    del cell, sections, report
    return None


def read_text(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return ""


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def decide(a, cell, expected, frame, console):
    """Returns (outcome, reason, got, supervisor_exit)."""
    if a.timed_out:
        done = "a complete result was written" if frame.get("sections") else "no complete result"
        return "timeout", f"guest did not power off within {a.timeout} s ({done})", None, None
    if PANIC_RE.search(console):
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
    sv_exit = int(status["supervisor_exit"]) if status.get("supervisor_exit", "").isdigit() else None
    if st in ("skipped", "precondition-error", "infra-error", "timeout"):
        return st, why, None, sv_exit
    if st != "ran":
        return "infra-error", f"guest status {st!r}: {why}", None, sv_exit
    if expected not in VERDICTS:
        return "infra-error", f"cell file expect={expected!r}: want one of {', '.join(VERDICTS)}", None, sv_exit
    report, got, notes = None, None, []
    if "report" in sec:
        try:
            report = json.loads(sec["report"])
            got = report.get("verdict")
            if report.get("complete") is not True:
                notes.append("report is provisional (complete=false)")
        except (ValueError, AttributeError) as e:
            notes.append(f"report is not JSON: {e}")
    else:
        notes.append("the supervisor wrote no report")
    by_exit = EXIT_VERDICT.get(sv_exit)
    if sv_exit == 2:
        return "infra-error", "the supervisor rejected its invocation (exit 2)", got, sv_exit
    if got is None:
        got = by_exit
        notes.append(f"verdict taken from exit status {sv_exit}")
    elif by_exit != got:
        # Exit status and report disagree: a supervisor defect, never ok.
        claims_pass = "pass" in (got, by_exit)
        outcome = "false-green" if claims_pass and expected != "pass" else "mismatch"
        return outcome, f"exit status {sv_exit} disagrees with report verdict {got!r}", got, sv_exit
    if got == expected:
        disagreement = oracle_check(cell, sec, report)
        if disagreement:
            return "oracle-mismatch", disagreement, got, sv_exit
        return "ok", "; ".join([f"verdict {got} as expected"] + notes), got, sv_exit
    if got == "pass":
        return "false-green", f"supervisor said pass, expected {expected}", got, sv_exit
    return "mismatch", "; ".join([f"expected {expected}, got {got}"] + notes), got, sv_exit


def cmd_evaluate(a):
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
    if "report" in sec:
        with open(report_path, "wb") as f:
            f.write(sec["report"])
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
        "oracle": None,
        "rerun": a.rerun,
    }
    tmp = os.path.join(a.out, "cell.json.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    os.replace(tmp, os.path.join(a.out, "cell.json"))
    emu = f" [{'; '.join(result['emulations'])}]" if masks else ""
    splat = f" SPLATS: {len(result['splats'])}" if result["splats"] else ""
    print(f"{cell}: {outcome.upper() if outcome in ('false-green', 'oracle-mismatch') else outcome}"
          f" (expected {expected}, got {got}) {reason}{emu}{splat}"
          f" [boot {boot_s if boot_s is not None else '?'} s, run {a.run_s:.1f} s]")


def main():
    ap = argparse.ArgumentParser(description="host side of one appliance cell")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("info")
    p.add_argument("cell_file")
    p = sub.add_parser("evaluate")
    for opt in ("--out", "--cell-file", "--nonce", "--kernel", "--initrd", "--qemu-version",
                "--accel", "--qemu-cmdline", "--rerun"):
        p.add_argument(opt, required=True)
    p.add_argument("--qemu-rc", type=int, required=True)
    p.add_argument("--timed-out", type=int, choices=(0, 1), required=True)
    p.add_argument("--timeout", type=int, required=True)
    p.add_argument("--run-s", type=float, required=True)
    a = ap.parse_args()
    if a.cmd == "info":
        cmd_info(a)
    else:
        cmd_evaluate(a)


if __name__ == "__main__":
    main()
