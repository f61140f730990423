#!/usr/bin/env python3
"""Issue 4's ground-truth oracle for one cell (docs/guest.md, "Outcomes"):
what the agents tried and what the sinks received, judged against the cell's
own allow-list with the ipaddress module, never taken from the supervisor;
the report must agree with both. cell_result.decide() asks it. Its allow-list
parser is the one copy that stays independent of the code it checks.
Stdlib only."""
import ipaddress
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cellfile import parse_cell_text  # noqa: E402
from contract import SORT_PROBE_PORTS, VERDICTS, parse_allow_spec  # noqa: E402


# Agent log calls that name a destination the agent tried to reach. Others
# (socket, recv, send on a connected socket, summaries, deliberately invalid
# calls) are not attempts.
ATTEMPT_CALLS = frozenset((
    "connect", "blocking_connect", "connect_filler", "connect_pending",
    "sendto", "sendmsg", "sendmmsg", "x32_connect", "socketcall_connect",
    "i386_connect", "io_uring_connect"))
# The calls among them that connect a socket (one handshake each).
CONNECT_CALLS = frozenset((
    "connect", "blocking_connect", "connect_filler", "connect_pending", "x32_connect",
    "socketcall_connect", "i386_connect", "io_uring_connect"))
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
    try:
        return parse_allow_spec(spec)
    except ValueError as e:
        raise OracleError(f"cell allow={spec!r}: {e}") from None


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
    SORT_PROBE_PORTS or to the unspecified address on any port (glibc's
    probe of a passive lookup, review h-realprog5), and only where the agent's own log shows every
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
        if (d is not None and (d[1] in SORT_PROBE_PORTS or d[0].is_unspecified) and
                d in failed and d not in succeeded):
            out.add(d)
    return out


def tried(agent_log, rules):
    """What the agent's own log shows it tried that a correct run refuses or
    never makes possible, whatever the supervisor said: a call naming an
    undeclared destination (any result), a `try_CALL` line an agent writes
    before such a call (so a call that never returned still counts: its
    process killed in it), a write through a socket the supervisor's caller
    left on 0-2 (`write_inherited`: no filter sees a write), a cross-process
    prlimit on its parent (`prlimit_parent`). An `untried=pass` expectation
    (docs/supervisor-contract.md) accepts pass only when this is empty.
    Returns [text]."""
    out = []
    for e in agent_log:
        call = e.get("call")
        if not isinstance(call, str):
            continue
        if call in ATTEMPT_CALLS:
            for c, d in agent_attempts([e]):
                if not is_declared(rules, d):
                    out.append(f"{c} to undeclared {dest_text(d)} (result {e.get('result')!r})")
        elif call.startswith("try_"):
            d = parse_dest(e.get("dest"))
            if d is not None and not is_declared(rules, d):
                out.append(f"{call[4:]} to undeclared {dest_text(d)} (logged before the call)")
        elif call == "write_inherited":
            out.append(f"a write through the caller's socket to {e.get('dest')} (result "
                       f"{e.get('result')!r})")
        elif call == "prlimit_parent":
            out.append(f"prlimit on its parent (result {e.get('result')!r})")
    return out


def ran_to_exit(agent_log):
    """The exit status the run's first agent process logged as it returned
    from main (agentlib.h: the last {"call": "exit", "top": true}), or None
    when it never did (killed, or never run)."""
    lines = [e for e in agent_log if e.get("call") == "exit" and e.get("top") is True]
    return lines[-1].get("result") if lines else None


def untried_problems(cell_text, sections):
    """Why an `untried=pass` acceptance does not hold for this cell: the
    agent tried something (tried()), or it did not run to its end (a pass
    vouches for a run that happened). [] when it holds."""
    try:
        _, multi = parse_cell_text(cell_text)
        rules = declared_policy(multi)
        agent_log = json_lines(sections.get("agent_log", b""), "agent_log")
    except OracleError as e:
        return [f"oracle: {e}"]
    out = [f"the agent tried {t}" for t in tried(agent_log, rules)]
    if ran_to_exit(agent_log) is None:
        out.append("the agent's first process logged no exit (killed, or never run)")
    return out


def owed_arrivals(deliveries, report, agent_log):
    """{dest: arrivals owed} from the report's deliveries, one per performed
    call, less what kernel semantics say one call may leave without an
    arrival of its own, each bounded by the agent's own log:
    - a TCP connect: a connect the agent saw interrupted (EINTR) may have
      been performed for it on a socket number the agent reused, whose next
      connect then waits for that same handshake and returns 0 too (one
      connection, two successful calls: review h-foreign3 finding 6). Owed:
      at least every connect the agent itself saw succeed (0 or
      EINPROGRESS), and at least the report's count less one per
      interrupted attempt;
    - a send the agent logged as held (MSG_PROBE, MSG_MORE, UDP_CORK:
      `"held"` in its line, succeeded), for a report that does not promise
      to mark held sends itself (supervisor.marks_held): no arrival of its
      own. A report that promises is held to its marks (ours)."""
    conn, send, report_held = {}, {}, {}
    for sc, d in deliveries:
        (conn if sc == "connect" else send)[d] = (conn if sc == "connect" else send).get(d, 0) + 1
    ok, eintr, agent_held = {}, {}, {}
    for e in agent_log:
        call, d = e.get("call"), parse_dest(e.get("dest"))
        if d is None:
            continue
        res, err = e.get("result"), e.get("errno")
        if call in CONNECT_CALLS:
            if res == 0 or err == "EINPROGRESS":
                ok[d] = ok.get(d, 0) + 1
            elif err == "EINTR":
                eintr[d] = eintr.get(d, 0) + 1
        elif call in ("sendto", "sendmsg") and "held" in e and err is None and \
                isinstance(res, int) and res >= 0:
            agent_held[d] = agent_held.get(d, 0) + 1
    sv = report.get("supervisor") if isinstance(report.get("supervisor"), dict) else {}
    if sv.get("marks_held") is not True:
        for ev in report.get("events") or []:
            if isinstance(ev, dict) and ev.get("held") is True and \
                    ev.get("action") == "performed" and ev.get("errno") is None:
                d = parse_dest(ev.get("dest"))
                if d is not None:
                    report_held[d] = report_held.get(d, 0) + 1
    else:
        agent_held = {}
    out = {}
    for d, n in conn.items():
        out[d] = min(n, max(ok.get(d, 0), n - eintr.get(d, 0)))
    for d, n in send.items():
        unmarked = max(0, agent_held.get(d, 0) - report_held.get(d, 0))
        out[d] = out.get(d, 0) + max(0, n - unmarked)
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
    deliveries = reported_deliveries(report, endpoints)
    wanted = owed_arrivals(deliveries, report, agent_log)
    for d, n in sorted(wanted.items(), key=lambda kv: dest_text(kv[0])):
        if arrived.get(d, 0) < n:
            claimed = sum(1 for _, x in deliveries if x == d)
            owed = f", {n} of them owed an arrival," if n != claimed else ""
            problems.append(f"the report performed {claimed} call(s) to {dest_text(d)} with "
                            f"success{owed} but the sink saw {arrived.get(d, 0)} arrival(s)")
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
