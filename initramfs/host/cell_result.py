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
import ipaddress
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bundle as B  # noqa: E402
from contract import (CELL_ID_CHARS, CELL_ID_RE, DEFAULT_TIMEOUT, LOUD_OUTCOMES,  # noqa: E402
                      SORT_PROBE_PORTS, VERDICTS, sha256_file)

EXIT_VERDICT = {0: "pass", 1: "fail", 3: "capability-error"}
SPLAT_RE = re.compile(r"WARNING:|BUG:|Oops|hung task|blocked for more than|Kernel panic")
PANIC_RE = re.compile(r"Kernel panic - not syncing")
INIT_MARK = "egress-init: started at uptime"



def parse_cell_text(data):
    """Cell file bytes -> ({key: first value}, {key: [values]}). Host-side it
    is lenient: the guest rejects unknown keys."""
    single, multi = {}, {}
    for line in data.decode("utf-8", "replace").split("\n"):
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, val = line.split("=", 1)
        multi.setdefault(key, []).append(val)
        single.setdefault(key, val)
    return single, multi


def read_cell_file(path):
    """The cell file as {key: value} for single keys and {key: [values]} for
    repeated ones."""
    with open(path, "rb") as f:
        return parse_cell_text(f.read())


def cell_info(path):
    """(cell id, timeout seconds) of a cell file; ValueError naming the key."""
    single, _ = read_cell_file(path)
    cell = single.get("cell", "")
    if not CELL_ID_RE.match(cell):
        raise ValueError(f"cell={cell!r}: want an id of [{CELL_ID_CHARS}]")
    timeout = single.get("timeout", str(DEFAULT_TIMEOUT))
    if not timeout.isdigit() or int(timeout) == 0:
        raise ValueError(f"timeout={timeout!r}: want whole seconds > 0")
    return cell, int(timeout)


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


# ---------------------------------------------------------------- oracle
#
# Issue 4's ground truth: the agents' attempt log (what they tried) and the
# sink's record (what really arrived), judged against the cell's own policy,
# computed here from allow=/loopback= with the ipaddress module and never
# taken from the supervisor. The report must agree with both.

# Agent log calls that name a destination the agent tried to reach. Others
# (socket, recv, send on a connected socket, summaries, deliberately invalid
# calls) are not attempts.
ATTEMPT_CALLS = frozenset((
    "connect", "blocking_connect", "connect_filler", "connect_pending",
    "sendto", "sendmsg", "sendmmsg", "x32_connect", "socketcall_connect",
    "i386_connect", "io_uring_connect"))
LOOPBACK_NETS = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))
SINK_ARRIVALS = ("accept", "datagram")


class OracleError(Exception):
    pass


def parse_dest(text):
    """'a.b.c.d:port' or '[v6]:port' -> (ip, port) with IPv4-mapped IPv6 as
    IPv4 (the kernel routes it over IPv4); None for anything else (unix:...,
    unspec, null, family=N)."""
    if not isinstance(text, str):
        return None
    m = re.match(r"^\[([0-9A-Fa-f:.]+)\]:(\d+)$", text) or re.match(r"^([0-9.]+):(\d+)$", text)
    if not m:
        return None
    try:
        ip = ipaddress.ip_address(m.group(1))
    except ValueError:
        return None
    port = int(m.group(2))
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip, port


def dest_text(d):
    ip, port = d
    return f"[{ip}]:{port}" if ip.version == 6 else f"{ip}:{port}"


def parse_allow(spec):
    """An allow SPEC (docs/design.md) -> (network, low port, high port)."""
    m = re.match(r"^\[([^\]]+)\](?:/(\d+))?(?::(\d+)(?:-(\d+))?)?$", spec) or \
        re.match(r"^([0-9.]+)(?:/(\d+))?(?::(\d+)(?:-(\d+))?)?$", spec)
    if not m:
        raise OracleError(f"cell allow={spec!r}: not v4[/prefix][:ports] or [v6][/prefix][:ports]")
    addr, prefix, lo, hi = m.groups()
    try:
        ip = ipaddress.ip_address(addr)
        net = ipaddress.ip_network(f"{ip}/{prefix if prefix is not None else ip.max_prefixlen}",
                                   strict=False)
    except ValueError as e:
        raise OracleError(f"cell allow={spec!r}: {e}") from None
    lo = int(lo) if lo is not None else 1
    hi = int(hi) if hi is not None else (lo if m.group(3) is not None else 65535)
    return net, lo, hi


def declared_policy(multi):
    """The cell's policy as [(network, lo, hi)], loopback included unless
    loopback=no."""
    rules = [parse_allow(a) for a in multi.get("allow", [])]
    if multi.get("loopback", ["yes"])[0] != "no":
        rules += [(n, 1, 65535) for n in LOOPBACK_NETS]
    return rules


def is_declared(rules, d):
    ip, port = d
    return any(ip.version == net.version and ip in net and lo <= port <= hi
               for net, lo, hi in rules)


def json_lines(data, what):
    out = []
    for no, ln in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        if not ln.strip():
            continue
        try:
            obj = json.loads(ln)
        except ValueError:
            raise OracleError(f"{what} line {no} is not JSON: {ln[:80]!r}") from None
        if not isinstance(obj, dict):
            raise OracleError(f"{what} line {no} is not a JSON object: {ln[:80]!r}")
        out.append(obj)
    return out


def agent_attempts(entries):
    """[(call, dest)] for every destination the agents tried: one per
    attempt line, one per message of a sendmmsg batch. Names that are not an
    inet destination (unix:, unspec, a deliberately broken name: sendmsg-name
    modes other than `name`) are not judged here: the report's own verdict
    covers them."""
    out = []
    for e in entries:
        if e.get("call") not in ATTEMPT_CALLS or e.get("mode", "name") != "name":
            continue
        dest = e.get("dest")
        parts = dest.split(",") if e["call"] == "sendmmsg" and isinstance(dest, str) else [dest]
        for p in parts:
            d = parse_dest(p)
            if d is not None:
                out.append((e["call"], d))
    return out


def interrupted_only(entries):
    """Destinations whose every attempt ended EINTR. Such a call may have
    been withdrawn before the supervisor received its notification: the
    supervisor never saw it and the kernel never made it (docs/design.md
    "What the supervisor cannot see"), so it is not owed a denial; what
    arrived at the sink is still checked."""
    seen, interrupted = set(), set()
    for e in entries:
        if e.get("call") not in ATTEMPT_CALLS or e.get("mode", "name") != "name":
            continue
        d = parse_dest(e.get("dest")) if e["call"] != "sendmmsg" else None
        if d is None:
            continue
        if d not in seen:
            interrupted.add(d)
        seen.add(d)
        if e.get("errno") != "EINTR":
            interrupted.discard(d)
    return interrupted


def reported_denials(report):
    """Normalized destinations the report lists as denied: events in bucket
    denied, and denied messages of sendmmsg events."""
    out = set()
    for ev in report.get("events") or []:
        if not isinstance(ev, dict):
            continue
        if ev.get("bucket") == "denied":
            d = parse_dest(ev.get("dest"))
            if d is not None:
                out.add(d)
        for m in ev.get("messages") or []:
            if isinstance(m, dict) and m.get("decision") == "denied":
                d = parse_dest(m.get("dest"))
                if d is not None:
                    out.add(d)
    return out


def reported_refusals(report, agent_log):
    """Normalized destinations of calls the report says were refused without
    counting as denials: a resolver's address-sorting probe (docs/design.md),
    a `connect` event in bucket neutralized with an errno, to a port of
    SORT_PROBE_PORTS, and only where the agent's own log shows every
    attempt to that destination failed (review h-attack46: any neutralized
    event with an errno had stood for a refusal, a performed send or a TCP
    connect labelled so included). What the report says is not taken alone;
    check (a) still holds the sink to it."""
    failed, succeeded = set(), set()
    for e in agent_log:
        if e.get("call") not in ATTEMPT_CALLS or e.get("call") == "sendmmsg":
            continue
        d = parse_dest(e.get("dest"))
        res = e.get("result")
        if d is None:
            continue
        if e.get("errno") is not None and isinstance(res, int) and res < 0:
            failed.add(d)
        else:
            succeeded.add(d)
    out = set()
    for ev in report.get("events") or []:
        if (not isinstance(ev, dict) or ev.get("bucket") != "neutralized" or
                ev.get("syscall") != "connect" or not ev.get("errno")):
            continue
        d = parse_dest(ev.get("dest"))
        if d is not None and d[1] in SORT_PROBE_PORTS and d in failed and d not in succeeded:
            out.add(d)
    return out


def reported_deliveries(report, endpoints):
    """What the report says was performed successfully and so must have
    reached a sink endpoint: [(syscall, dest)]. A connect reaches only a TCP
    endpoint (a UDP connect sends nothing); a send reaches either. A sendmmsg
    delivered its first `result` messages. A send the report marks `held`
    (MSG_PROBE, MSG_MORE or UDP_CORK: the kernel sent nothing yet, perhaps
    never) is no delivery of its own (review h-attack34 finding 6)."""
    out = []
    for ev in report.get("events") or []:
        if not isinstance(ev, dict) or ev.get("action") != "performed":
            continue
        if ev.get("held") is True:
            continue
        sc, res, err = ev.get("syscall"), ev.get("result"), ev.get("errno")
        if sc == "sendmmsg":
            ok = err is None and isinstance(res, int) and res > 0 and \
                ev.get("bucket") in ("allowed", "denied")
            msgs = ev.get("messages") or []
            for m in msgs[:res] if ok else []:
                d = parse_dest(m.get("dest")) if isinstance(m, dict) else None
                if d is not None and m.get("decision") == "allowed" and d in endpoints:
                    out.append((sc, d))
            continue
        if ev.get("bucket") != "allowed":
            continue
        if not (err is None or (sc == "connect" and err == "EINPROGRESS")):
            continue
        d = parse_dest(ev.get("dest"))
        if d is None or d not in endpoints:
            continue
        if sc == "connect" and "tcp" not in endpoints[d]:
            continue
        out.append((sc, d))
    return out


def sink_endpoints(multi):
    """{dest: {"tcp", "udp"}} from the cell's sink= lines."""
    out = {}
    for spec in multi.get("sink", []):
        proto, _, addr = spec.partition(" ")
        d = parse_dest(addr.strip())
        if proto not in ("tcp", "udp") or d is None:
            raise OracleError(f"cell sink={spec!r}: want tcp|udp ADDR:PORT")
        out.setdefault(d, set()).add(proto)
    return out


def promised_errno(report):
    """The errno the report's supervisor promises for a denial (report
    schema 2: supervisor.denial_errno), or None: no promise, no errno check."""
    sv = report.get("supervisor") if isinstance(report, dict) else None
    e = sv.get("denial_errno") if isinstance(sv, dict) else None
    return e if isinstance(e, str) and re.match(r"^E[A-Z0-9]+$", e) else None


def arrival_problems(rules, arrivals, problems):
    """Check (a), nothing undeclared arrived at the sink: appends to
    problems; returns {dest: arrivals}."""
    arrived = {}
    for a in arrivals:
        d = parse_dest(a.get("dest"))
        if d is None:
            problems.append(f"sink recorded an arrival it cannot place: {a}")
            continue
        arrived[d] = arrived.get(d, 0) + 1
        if not is_declared(rules, d):
            problems.append(f"undeclared {dest_text(d)} arrived at the sink "
                            f"({a.get('proto')} from {a.get('peer')})")
    return arrived


def survivor_problems(sections, problems):
    """Check (d), nothing of the run outlived the supervisor (issue 12: the
    guest lists what was still in the cell's cgroup after the sink's
    grace): appends to problems; returns how many did."""
    survivors = [ln for ln in sections.get("survivors", b"").decode("utf-8", "replace")
                 .splitlines() if ln.strip()]
    if survivors:
        problems.append(f"{len(survivors)} process(es) of the run outlived the supervisor: "
                        f"{'; '.join(survivors[:3])}")
    return len(survivors)


def typed_problems(sections, problems):
    """Check (e), nothing was typed into the caller's terminal (stdio=N
    pty: input queued there is what the caller's shell reads and runs after
    the run, outside every filter; the guest never runs it, any byte is an
    escape): appends to problems; returns how many bytes were."""
    typed = sections.get("tty_input", b"")
    if typed:
        problems.append(f"{len(typed)} byte(s) were typed into the caller's terminal, which its "
                        f"shell would run after the run: {typed[:80]!r}")
    return len(typed)


def escapes(cell_text, sections):
    """What the ground truth says reached outside the run whatever the
    supervisor said or failed to say: an undeclared arrival at the sink,
    bytes typed into the caller's terminal. Not a survivor: a cell without
    a verdict ended with its supervisor killed by the guest, whose tree a
    hang-blind supervisor never ended (the killed-supervisor scenarios
    judge that class). For a cell that ended without a verdict
    (timeout, supervisor-hang) from a complete frame: an agent that stops
    a child of its own so the run never ends chose `timeout`, which hid
    what its undeclared sends delivered (hostile review h-attack58).
    Returns [problem]."""
    problems = []
    try:
        _, multi = parse_cell_text(cell_text)
        if sink_endpoints(multi) and "sink_log" in sections:
            arrival_problems(declared_policy(multi),
                             [a for a in json_lines(sections["sink_log"], "sink_log")
                              if a.get("event") in SINK_ARRIVALS], problems)
    except OracleError as e:
        problems.append(f"oracle: {e}")
    typed_problems(sections, problems)
    return problems


def oracle_evaluate(cell_text, sections, report, report_kind="appliance-v1"):
    """The oracle's facts and disagreements: {"problems": [...], ...}.
    Independent of the supervisor except for the report being judged. With
    report_kind "none" (a bundle that writes no report) there is no report:
    a denial is judged by what happened, the agent's call failed (any errno)
    and nothing arrived."""
    facts = {"problems": []}
    problems = facts["problems"]
    try:
        single, multi = parse_cell_text(cell_text)
        rules = declared_policy(multi)
        endpoints = sink_endpoints(multi)
        agent_log = json_lines(sections.get("agent_log", b""), "agent_log")
        attempts = agent_attempts(agent_log)
        unseen_ok = interrupted_only(agent_log)
        arrivals = []
        if endpoints:
            if "sink_log" not in sections:
                raise OracleError("the cell has sink= endpoints but the result has no sink_log")
            arrivals = [a for a in json_lines(sections["sink_log"], "sink_log")
                        if a.get("event") in SINK_ARRIVALS]
    except OracleError as e:
        problems.append(f"oracle: {e}")
        return facts
    no_report = report_kind == "none"
    report = report if isinstance(report, dict) and not no_report else {}
    verdict = report.get("verdict") if not no_report else facts_verdict(sections)
    facts["judged_by"] = ("exit status and ground truth (the bundle writes no report)"
                          if no_report else "report, exit status and ground truth")
    facts["attempts"] = len(attempts)
    facts["arrivals"] = len(arrivals)
    # (a) nothing undeclared arrived at the sink.
    arrived = arrival_problems(rules, arrivals, problems)
    # (b) every delivery the report claims arrived, as often as claimed.
    wanted = {}
    for _, d in reported_deliveries(report, endpoints):
        wanted[d] = wanted.get(d, 0) + 1
    for d, n in sorted(wanted.items(), key=lambda kv: dest_text(kv[0])):
        if arrived.get(d, 0) < n:
            problems.append(f"the report performed {n} call(s) to {dest_text(d)} with success "
                            f"but the sink saw {arrived.get(d, 0)} arrival(s)")
    # (c) every undeclared destination tried is among the report's denials.
    undeclared = sorted({d for _, d in attempts if not is_declared(rules, d)},
                        key=dest_text)
    facts["undeclared_attempted"] = [dest_text(d) for d in undeclared]
    facts["interrupted_only"] = [dest_text(d) for d in undeclared if d in unseen_ok]
    if verdict != "capability-error" and not no_report:
        denied = reported_denials(report) | reported_refusals(report, agent_log)
        for d in undeclared:
            if d not in denied and d not in unseen_ok:
                problems.append(f"the agent tried undeclared {dest_text(d)} but the report "
                                f"lists no denial for it")
    # (c') without a report: a denial is what happened, every attempt to an
    # undeclared destination failed (any errno), as the agent logged it.
    if verdict != "capability-error" and no_report:
        for e in agent_log:
            res = e.get("result")
            if e.get("errno") is not None or not isinstance(res, int) or res < 0:
                continue
            sent = agent_attempts([e])
            if e.get("call") == "sendmmsg":
                # A batch returns how many of its messages were sent, in
                # order: a refused message and those after it were not.
                sent = sent[:res]
            for call, d in sent:
                if not is_declared(rules, d):
                    problems.append(f"the agent's {call} to undeclared {dest_text(d)} succeeded "
                                    f"(result {res}): nothing refused it")
    # (c'') a report that promises its denials' errno (our supervisor: EACCES)
    # is held to it: every refused undeclared attempt carries that errno
    # (EINTR aside: an interrupted call may never have been seen).
    promise = promised_errno(report)
    facts["denial_errno"] = promise
    if promise and verdict != "capability-error":
        for e in agent_log:
            err = e.get("errno")
            for call, d in agent_attempts([e]):
                if not is_declared(rules, d) and err not in (None, promise, "EINTR", "EINPROGRESS"):
                    problems.append(f"the report promises denials answer {promise} but the "
                                    f"agent's {call} to undeclared {dest_text(d)} got {err}")
    # (d) and (e): nothing outlived the supervisor, nothing was typed.
    facts["survivors"] = survivor_problems(sections, problems)
    facts["tty_input_bytes"] = typed_problems(sections, problems)
    # expect_agent_exit: the agent's own exit status, from the report, or,
    # for a bundle that writes none, from the agent's own exit line
    # (agentlib.h): review h-foreign3's report-less bundle passed an agent
    # that exited 1 for an escape, and the cell was ok.
    want_exit = single.get("expect_agent_exit")
    agent = report.get("agent") if isinstance(report.get("agent"), dict) else {}
    probe = report.get("probe") if isinstance(report.get("probe"), dict) else {}
    if want_exit is not None and no_report:
        logged_exit_problems(want_exit, verdict, agent_log, problems)
        want_exit = None
    # A supervisor that answers a violation by killing the agent, a design
    # the contract allows (a refused call must fail in the agent; nothing
    # says the agent survives it), leaves no exit status to compare: its
    # fail or capability-error is never a green, and the attempts and
    # arrivals were checked above (review h-foreign3: 21 cells of a
    # kill-on-violation supervisor were oracle-mismatch for this alone).
    if verdict in ("fail", "capability-error") and agent.get("exit_code") is None \
            and agent.get("signal") == 9:
        want_exit = None
    # A supervisor whose probe failed refuses to run the agent at all (pid 0):
    # there is no exit status to compare, and nothing may have been tried.
    if probe.get("result") == "failed" and not agent.get("pid"):
        if attempts:
            problems.append(f"the probe failed and the agent was not run, yet the agent log "
                            f"holds {len(attempts)} attempt(s)")
        want_exit = None
    if want_exit is not None:
        got_exit = agent.get("exit_code")
        if not want_exit.isdigit() or got_exit != int(want_exit):
            problems.append(f"expect_agent_exit={want_exit} but the report says the agent's "
                            f"exit_code is {got_exit!r} (signal {agent.get('signal')!r})")
    return facts


def logged_exit_problems(want_exit, verdict, agent_log, problems):
    """expect_agent_exit against the exit line the run's first agent process
    logged ({"call": "exit", "top": true}; the last one: an exec'd image
    logs its own), for a bundle without a report. No line: the agent was
    killed (or never ran), which a fail or a capability-error may be; a pass
    must show the status it vouches for."""
    lines = [e for e in agent_log if e.get("call") == "exit" and e.get("top") is True]
    if lines:
        got = lines[-1].get("result")
        if not want_exit.isdigit() or got != int(want_exit):
            problems.append(f"expect_agent_exit={want_exit} but the agent logged exit status "
                            f"{got!r} (the bundle writes no report)")
    elif verdict == "pass":
        problems.append(f"expect_agent_exit={want_exit} but the agent logged no exit status "
                        f"(killed, or it never ran) under a pass")


def facts_verdict(sections):
    """The verdict decide() put in the status section's place for a bundle
    without a report: taken from the exit status by the caller and passed
    in sections["_verdict"] (never from the guest)."""
    v = sections.get("_verdict")
    return v if v in VERDICTS else None


def oracle_check(cell, sections, report, report_kind="appliance-v1"):
    """Issue 4's ground-truth oracle: None when the agent's attempt log and
    the sink's record agree with the report (and the agent exited as
    expect_agent_exit says), else a one-line disagreement (outcome
    oracle-mismatch). CELL is the cell id; the cell file is the result's
    `cell` section (its sha256 was checked against --cell-file)."""
    del cell
    facts = oracle_evaluate(sections.get("cell", b""), sections, report, report_kind)
    probs = facts["problems"]
    if not probs:
        return None
    more = f" (+{len(probs) - 2} more)" if len(probs) > 2 else ""
    return "; ".join(probs[:2]) + more


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
        esc = escapes(sec.get("cell", b""), sec)
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
    got, never_ok = judge_report(sv_exit, killed, report, expected, bundle)
    if never_ok:
        outcome, why = never_ok
        return outcome, "; ".join([why] + notes), report.get("verdict") if report else None, sv_exit
    if report is None and kind != "none":
        notes.append(f"verdict taken from exit status {sv_exit}")
    if got == expected:
        disagreement = oracle_check(cell, dict(sec, _verdict=got), report, kind)
        if disagreement:
            return "oracle-mismatch", disagreement, got, sv_exit
        return "ok", "; ".join([f"verdict {got} as expected"] + notes), got, sv_exit
    if got == "pass":
        return "false-green", f"supervisor said pass, expected {expected}", got, sv_exit
    return "mismatch", "; ".join([f"expected {expected}, got {got}"] + notes), got, sv_exit


def oracle_summary(frame, sec, bundle=None, got=None):
    """The oracle's facts for cell.json (None when the supervisor never ran)."""
    if "sections" not in frame or kv_lines(sec.get("status", b"")).get("status") != "ran":
        return None
    kind = bundle["report"] if bundle else "appliance-v1"
    report = load_report(sec)[0] if kind != "none" else None
    return oracle_evaluate(sec.get("cell", b""), dict(sec, _verdict=got), report, kind)


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
