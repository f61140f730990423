#!/usr/bin/env python3
"""`make repro PROFILE=FILE`: replay a host in the appliance (docs/hostprofile.md).

    repro.py --profile FILE [--scenarios GLOBS] [--supervisor PATH] [--kernel NAME]
             [--jobs N] [--run-id ID] [--results DIR] [--plan]

Reads the profile egress-hostprofile wrote on the host (hostprofile.py
validates it: a bad one is exit 2 naming the field), picks the matrix kernel
that stands for the host's and says why (and which verdict-deciding options
differ, and which custom kernel has the host's value), maps the host's Yama
setting, credentials and container profile onto the guest (ptrace_scope,
user, syscall masks), and runs every scenario whose verdicts are derived per
environment (those with the ptrace_scope and user axes) with those values
pinned, through matrix.py. Before a cell is believed, the supervisor's own
probe in the guest is compared with the host's probe of a child, answer by
answer: a difference is precondition-error naming it, never a result. Prints
each scenario's verdict on that host and whether a supervisor can enforce
there. --plan prints the plan and runs nothing. Exit 0 when every cell is
ok, 1 when one is not, 2 when the replay cannot be set up.

Writes results/<run>/ (matrix.py's) plus repro.json and host-scenarios/.
Python 3 standard library only.
"""

import argparse
import datetime
import fnmatch
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostprofile as H  # noqa: E402
import kernels as K  # noqa: E402 - kernels.sh config NAME; SetupError
import matrix  # noqa: E402
import scenario as S  # noqa: E402

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LOCK = os.path.join(TOP, "kernel-configs", "debian-kernels.lock")


def kernel_config(name):
    with open(K.kernel_config_path(name), encoding="utf-8") as f:
        return H.parse_config(f.read())


def plan(profile_path, opts):
    p = H.load(profile_path)
    env = H.environment(p)
    if opts.kernel:
        kname, why = opts.kernel, "given by --kernel"
    else:
        kname, why = H.choose_kernel(p, H.debian_kernels(LOCK))
    host_cfg = H.config_options(p)
    diffs = H.config_differences(host_cfg, kernel_config(kname)) if host_cfg else []
    scenarios = S.load([os.path.join(TOP, "scenarios")], S.live_kernels(TOP))
    pats = opts.scenarios.split() if opts.scenarios else []
    chosen, skipped = [], []
    for sc in scenarios:
        if pats and not any(fnmatch.fnmatchcase(sc.name, x) for x in pats):
            continue
        text, reason = H.host_scenario_text(sc, env)
        (chosen if text else skipped).append((sc, text or reason))
    return {"profile": p, "env": env, "kernel": kname, "kernel_why": why,
            "config_known": host_cfg is not None, "config_diffs": diffs,
            "variants": H.matching_variants(diffs), "chosen": chosen, "skipped": skipped}


def print_plan(pl):
    p, env = pl["profile"], pl["env"]
    print(f"repro: host {p['kernel']['release']}: kernel {pl['kernel']} ({pl['kernel_why']})")
    if not pl["config_known"]:
        print("repro: the host's kernel config is unknown: options cannot be compared")
    for o, h, g in pl["config_diffs"]:
        print(f"repro: kernel option differs: {o} host={h} guest={g}")
    if pl["variants"]:
        print(f"repro: the custom kernel(s) {' '.join(pl['variants'])} have the host's value: "
              f"rerun with --kernel NAME (make repro KERNEL=NAME)")
    print(f"repro: guest stands for the host as ptrace_scope={env['ptrace_scope']} "
          f"user={env['user']} masks={' '.join(env['masks']) or 'none'}")
    for n in env["notes"]:
        print(f"repro: note: {n}")
    for u in env["unreproducible"]:
        print(f"repro: CANNOT REPRODUCE: {u}")
    by_why = {}
    for sc, why in pl["skipped"]:
        by_why.setdefault(why, []).append(sc.name)
    for why, names in by_why.items():
        print(f"repro: not replayed ({why}): {' '.join(names)}")
    print(f"repro: replaying {len(pl['chosen'])} scenarios: "
          f"{' '.join(sc.name for sc, _ in pl['chosen'])}")


def judge(pl, rdir):
    """Per cell of the matrix run: the outcome on that host, distrusting a
    cell whose guest probe differs from the host's."""
    with open(os.path.join(rdir, "summary.json"), encoding="utf-8") as f:
        summ = json.load(f)
    out = []
    for c in summ["cells"]:
        outcome, reason = c["outcome"], c["reason"]
        guest, probe = matrix.replay_evidence(os.path.join(rdir, c["dir"]))
        diffs = H.replay_differences(pl["profile"], guest, probe)
        if pl["env"]["unreproducible"]:
            outcome, reason = "precondition-error", "; ".join(pl["env"]["unreproducible"])
        elif outcome in ("skipped",):
            pass
        elif diffs:
            outcome, reason = "precondition-error", "; ".join(diffs)
        out.append({"cell": c["cell"], "expected": c["expected"], "got": c["got"],
                    "matrix_outcome": c["outcome"], "outcome": outcome, "reason": reason})
    return out


def main(argv=None):
    env = os.environ.get
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", default=env("PROFILE", ""))
    ap.add_argument("--scenarios", default=env("SCENARIOS", ""))
    ap.add_argument("--supervisor", default=env("SUPERVISOR", ""))
    ap.add_argument("--kernel", default=env("KERNEL", ""))
    ap.add_argument("--jobs", default=env("JOBS", ""))
    ap.add_argument("--run-id", default=env("RUN_ID", ""))
    ap.add_argument("--results", default=os.path.join(TOP, "results"))
    ap.add_argument("--plan", action="store_true")
    opts = ap.parse_args(argv)
    if not opts.profile:
        print("repro: error: PROFILE=FILE (a profile egress-hostprofile wrote) is required",
              file=sys.stderr)
        return 2
    try:
        pl = plan(opts.profile, opts)
    except (H.ProfileError, K.SetupError, S.ScenarioError, RuntimeError, OSError) as e:
        print(f"repro: error: {e}", file=sys.stderr)
        return 2
    print_plan(pl)
    if opts.plan or not pl["chosen"]:
        return 0 if pl["chosen"] or opts.plan else 2
    run_id = opts.run_id or "repro-" + datetime.datetime.now(
        datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    rdir = os.path.join(os.path.abspath(opts.results), run_id)
    sdir = os.path.join(os.path.abspath(opts.results), run_id + ".host-scenarios")
    os.makedirs(sdir)
    for sc, text in pl["chosen"]:
        with open(os.path.join(sdir, f"{H.host_name(sc.name)}.scenario"), "w",
                  encoding="utf-8") as f:
            f.write(text)
    argv = [sys.executable, os.path.join(TOP, "scenarios", "tools", "matrix.py"),
            "--kernels", pl["kernel"], "--scenarios",
            " ".join(H.host_name(sc.name) for sc, _ in pl["chosen"]), "--extra-scenarios", sdir,
            "--run-id", run_id, "--results", opts.results]
    if opts.supervisor:
        argv += ["--supervisor", opts.supervisor]
    if opts.jobs:
        argv += ["--jobs", opts.jobs]
    rc = subprocess.run(argv, check=False).returncode
    if rc == 2 or not os.path.exists(os.path.join(rdir, "summary.json")):
        print("repro: error: the matrix run could not be set up", file=sys.stderr)
        return 2
    cells = judge(pl, rdir)
    with open(os.path.join(rdir, "repro.json"), "w", encoding="utf-8") as f:
        json.dump({"profile": os.path.abspath(opts.profile), "kernel": pl["kernel"],
                   "kernel_why": pl["kernel_why"], "environment": pl["env"],
                   "config_diffs": pl["config_diffs"], "cells": cells,
                   "enforce": H.enforce_summary(pl["profile"])}, f, indent=2)
        f.write("\n")
    print("\non that host:")
    for c in cells:
        print(f"  {c['cell']}: verdict {c['got']} (expected {c['expected']}): {c['outcome']}"
              + (f": {c['reason']}" if c["outcome"] != "ok" else ""))
    print(f"\n{H.enforce_summary(pl['profile'])}")
    bad = [c for c in cells if c["outcome"] not in ("ok", "skipped")]
    print(f"repro: {len(cells) - len(bad)} passed, {len(bad)} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
