#!/usr/bin/env python3
"""The kernel x scenario matrix: compile cells, build one initramfs, boot every
cell (several VMs at once), assert each cell's expected verdict, report.

    matrix.py [--kernels GLOBS] [--scenarios GLOBS] [--jobs N]
              [--supervisor PATH] [--extra-scenarios DIR] [--run-id ID]
              [--accel auto|kvm|tcg] [--results DIR] [--shard I/N] [--base DIR]
              [--list]

Each option defaults to an environment variable of the same name in capitals
(KERNELS, SCENARIOS, JOBS, SUPERVISOR, EXTRA_SCENARIOS, RUN_ID, ACCEL, SHARD,
BASE), which
is how `make matrix KERNELS=... SCENARIOS=...` reaches it. The accelerator is
proven once per run by booting a canary guest (initramfs/host/launcher.py)
and handed to every cell. GLOBS are separated by
white space; a scenario glob matches a scenario name
(`starter-undeclared`) or a scenario cell (`starter-*.ptrace_scope=2,user=*`).

Writes results/<run-id>/: summary.json, junit.xml, index.html (report_html.py;
compared with --base when given), cells/<cell-id>/ (cell
file, cell.json, console.log, report.json from `run-vm.sh cell`),
kernels/<name>.config. Exit status: 0 when every cell is ok or skipped, 1 when
any is not, 2 when the run could not be set up or index.html not written,
128+N when signal N (TERM, INT, HUP) stopped it: the cells decided so far
keep their outcomes, the rest are not-run, and every file is still written.
docs/scenarios.md has more.
Python 3 standard library only.
"""

import argparse
import datetime
import fnmatch
import json
import os
import shutil
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario as S  # noqa: E402
import floor as F  # noqa: E402
import hostprofile as H  # noqa: E402
import shards as SH  # noqa: E402 - SHARD=I/N and the record matrix-merge checks
import matrix_diff as MD  # noqa: E402 - BASE=: the comparison with another run
import kernels as K  # noqa: E402 - kernels.sh asked about each kernel; SetupError
import summary as SUM  # noqa: E402 - features per kernel, the table, junit.xml
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "initramfs", "host"))
import bundle as BU  # noqa: E402 - SUPERVISOR=FILE|DIR, the one parser of bundles
import report_html as RH  # noqa: E402 - results/<run>/index.html
import schedule as SC  # noqa: E402 - batches, the children that boot them, judging
L = F.L  # initramfs/host/launcher.py: the QEMU line and the accelerator
import contract as C  # noqa: E402 - initramfs/host/contract.py, on the path floor set

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# Committed host profiles (docs/hostprofile.md): each replayed on the kernel
# that stands for it, as host-PROFILE-SCENARIO cells.
HOSTS_DIR = os.path.join(TOP, "scenarios", "hosts")
LOCK = os.path.join(TOP, "kernel-configs", "debian-kernels.lock")
BUILD = os.environ.get("BUILD") or os.path.join(TOP, "build")
# The guest's own programs (envexec, features, sink): another directory only
# for a guest mutant (scenarios/tools/mutants.py, make guest-mutant-bin).
GUEST_BIN = os.environ.get("GUEST_BIN", "")
OUTCOMES, LOUD_OUTCOMES, GOOD_OUTCOMES = C.OUTCOMES, C.LOUD_OUTCOMES, C.GOOD_OUTCOMES
SetupError = K.SetupError  # kernels.py's: a kernel lookup and the run stop alike


# What a cancelled CI job or an operator sends; each stops the run cleanly.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def log(msg):
    print(f"matrix: {msg}", file=sys.stderr, flush=True)


def globs(text):
    return text.split() if text else []





# ---------------------------------------------------------------- set-up

def select_kernels(patterns):
    names = S.live_kernels(TOP)
    if not patterns:
        return list(names)
    out = [k for k in names if any(fnmatch.fnmatchcase(k, p) for p in patterns)]
    for p in patterns:
        if not any(fnmatch.fnmatchcase(k, p) for k in names):
            raise SetupError(f"KERNELS pattern {p!r} matches no kernel (kernels: "
                             f"{' '.join(names)})")
    return out


def distrust_unlike_host(cell, profile):
    """A committed host's cell is believed only when the guest stood for
    the host: the guest's own profile (written by profile-launcher before
    the supervisor started) answered as the host's did, target by target,
    and so did the supervisor's own probe when its report has one;
    otherwise it is a precondition-error naming the difference."""
    if cell["outcome"] in ("skipped", "infra-error", "boot-fail", "panic", "timeout"):
        return
    diffs = H.replay_differences(profile, *replay_evidence(cell["dir"]))
    if diffs:
        cell["outcome"], cell["reason"] = "precondition-error", "; ".join(diffs)


def replay_evidence(cell_dir):
    """(guest profile bytes or None, the report's probe or None) of a
    host replay cell's directory."""
    guest = probe = None
    try:
        with open(os.path.join(cell_dir, "guest", "guest_profile"), "rb") as f:
            guest = f.read()
    except OSError:
        pass
    try:
        with open(os.path.join(cell_dir, "report.json"), encoding="utf-8") as f:
            probe = json.load(f).get("probe")
    except (OSError, ValueError, AttributeError):
        pass
    return guest, probe


def kernel_initrd(initrd, kinfo, rdir):
    """The run's initramfs with the kernel's modules archive appended (the
    kernel unpacks concatenated newc archives in order), so protocol
    autoloading in the guest behaves as on the Debian host (docs/guest.md,
    "Modules"). One file per kernel of the run, in the run directory."""
    out = os.path.join(rdir, f"initramfs+{kinfo['name']}.cpio")
    with open(out, "wb") as dst:
        for part in (initrd, kinfo["modules"]):
            with open(part, "rb") as src:
                shutil.copyfileobj(src, dst, 1 << 20)
    return out


def prove_accelerator(kinfo, kernels, mode, rdir):
    """The run's accelerator, proven once by booting the canary on the
    first kernel the run has (launcher.choose_accelerator; LaunchError when
    none boots). Without any kernel no canary can boot, and every cell is
    an infra-error anyway: TCG is named, with that reason."""
    first = next((kinfo[k] for k in kernels if kinfo[k]["path"]), None)
    if first is None:
        return {"accelerator": "tcg", "mode": mode, "canary": [],
                "reason": "no kernel of the run could be fetched or built: no canary booted"}
    return L.choose_accelerator(first["path"], first["machine"] or "q35",
                                os.path.join(rdir, "canary"), mode)


def select_cells(scenarios, patterns, kernels):
    """[(scenario, cell_name, axes, kernel)] in kernel-interleaved order."""
    picked = []
    for sc in scenarios:
        for cname, axes in sc.cells():
            if not patterns or any(fnmatch.fnmatchcase(sc.name, p) or
                                   fnmatch.fnmatchcase(cname, p) for p in patterns):
                picked.append((sc, cname, axes))
    for p in patterns:
        if not any(fnmatch.fnmatchcase(sc.name, p) or fnmatch.fnmatchcase(c, p)
                   for sc in scenarios for c, _ in sc.cells()):
            raise SetupError(f"SCENARIOS pattern {p!r} matches no scenario or cell")
    # Interleave kernels so a slow kernel does not bunch up at the end.
    return [(sc, c, a, k) for sc, c, a in picked for k in kernels]


def agent_sources(scenarios, extra_dir):
    """{agent name: host path} for every agent the scenarios name. A project
    scenario's agents come from build/agents/ (make agents); an
    EXTRA_SCENARIOS scenario's come from that directory when it has the
    binary, else from build/agents/. An extra agent may not shadow a project
    one (the guest has one /agents/NAME)."""
    project = os.path.join(BUILD, "agents")
    out = {}
    for sc in scenarios:
        is_extra = bool(extra_dir) and \
            os.path.dirname(os.path.abspath(sc.path)) == extra_dir
        for name in S.agents_named(sc):
            cand = os.path.join(project, name)
            if is_extra and os.path.exists(os.path.join(extra_dir, name)):
                if os.path.exists(cand):
                    raise SetupError(f"{extra_dir}/{name}: an extra agent may not shadow "
                                     f"the project agent {cand}: rename it")
                cand = os.path.join(extra_dir, name)
            if not os.path.isfile(cand) or not os.access(cand, os.X_OK):
                where = f"{extra_dir} (EXTRA_SCENARIOS) or {project}" if is_extra \
                    else f"{project} (make agents)"
                raise SetupError(f"{sc.path}: agent /agents/{name} has no executable "
                                 f"{name} in {where}")
            out[name] = cand
    return out


def build_initramfs(rdir, cells_dir, supervisor, agents, out):
    """initramfs/build.sh: one image per run with every cell file, the
    supervisor under test, the project's agents and the extra ones (staged
    in rdir/extra-agents). Returns the seconds it took."""
    script = os.path.join(TOP, "initramfs", "build.sh")
    if not os.path.exists(script):
        raise SetupError(f"{script} is missing (the guest image builder)")
    guest_bin = GUEST_BIN or os.path.join(BUILD, "initramfs", "bin")
    if GUEST_BIN:
        print(f"matrix: guest programs from {GUEST_BIN} (GUEST_BIN: not the project's own)",
              flush=True)
    project = os.path.join(BUILD, "agents")
    argv = [script, "--out", out, "--guest-bin", guest_bin, "--supervisor", supervisor,
            "--cells", cells_dir]
    if os.path.isdir(project):
        argv += ["--agents", project]
    extra = {n: p for n, p in agents.items() if os.path.dirname(p) != project}
    if extra:
        edir = os.path.join(rdir, "extra-agents")
        os.makedirs(edir)
        for name, path in sorted(extra.items()):
            shutil.copy2(path, os.path.join(edir, name))
        argv += ["--agents", edir]
    t0 = time.monotonic()
    K.run_tool(argv, "initramfs")
    if not os.path.isfile(out):
        raise SetupError(f"initramfs/build.sh wrote no {out}")
    return time.monotonic() - t0


# ---------------------------------------------------------------- main

def parse_args(argv):
    env = os.environ.get
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels", default=env("KERNELS", ""))
    ap.add_argument("--scenarios", default=env("SCENARIOS", ""))
    ap.add_argument("--jobs", default=env("JOBS", "") or str(os.cpu_count() or 1))
    ap.add_argument("--supervisor", default=env("SUPERVISOR", ""))
    ap.add_argument("--extra-scenarios", default=env("EXTRA_SCENARIOS", ""))
    ap.add_argument("--run-id", default=env("RUN_ID", ""))
    ap.add_argument("--accel", default=env("ACCEL", "") or "auto",
                    help="auto (default: KVM when a canary boots with it, else TCG), kvm or "
                    "tcg")
    ap.add_argument("--results", default=os.path.join(TOP, "results"))
    ap.add_argument("--floor", default=env("FLOOR", "measure"),
                    help="'measure' (default: boot an init that only powers off, once "
                    "per kernel) or seconds to take as the boot floor")
    ap.add_argument("--runner", default=os.path.join(TOP, "run-vm.sh"),
                    help="the per-cell runner, called as RUNNER cell ... (default: "
                    "run-vm.sh; tests substitute a fake)")
    ap.add_argument("--shard", default=env("SHARD", ""),
                    help="I/N: run shard I of N of the selected cells (shards.py)")
    ap.add_argument("--base", default=env("BASE", ""),
                    help="a run directory to compare with (text and index.html)")
    ap.add_argument("--isolation", default=env("ISOLATION", "") or "batch",
                    help="batch (default: many cells per boot, the reset proven between "
                    "them) or boot (one boot per cell)")
    ap.add_argument("--costs", default=env("COSTS", "") or "auto",
                    help="what sizes batches: auto (default: the newest run under --results "
                    "that has guest times), none (the declared timeouts) or a "
                    "results/<run> directory")
    ap.add_argument("--list", action="store_true",
                    help="print the cells and their expected verdicts, boot nothing")
    opts = ap.parse_args(argv)
    if not opts.jobs.isdigit() or int(opts.jobs) < 1:
        raise SetupError(f"JOBS must be a positive number, not {opts.jobs!r}")
    opts.jobs = int(opts.jobs)
    if opts.isolation not in C.ISOLATIONS:
        raise SetupError(f"ISOLATION must be one of {', '.join(C.ISOLATIONS)}, "
                         f"not {opts.isolation!r}")
    try:
        opts.shard_i, opts.shard_n = SH.parse(opts.shard)
    except SH.ShardError as e:
        raise SetupError(str(e)) from None
    if opts.base and not os.path.isfile(os.path.join(opts.base, "summary.json")):
        raise SetupError(f"BASE={opts.base} has no summary.json (a results/<run> directory)")
    if opts.costs not in ("auto", "none") and \
            not os.path.isfile(os.path.join(opts.costs, "summary.json")):
        raise SetupError(f"COSTS={opts.costs} has no summary.json (auto, none or a "
                         f"results/<run> directory)")
    opts.costs_from = None
    try:
        L.accel_mode(opts.accel)
    except L.LaunchError as e:
        raise SetupError(str(e)) from None
    opts.supervisor_given = bool(opts.supervisor)
    if not opts.supervisor:
        opts.supervisor = os.path.join(BUILD, "egress-supervisor")
    opts.supervisor = os.path.abspath(opts.supervisor)
    opts.supervisor_source = opts.supervisor
    if opts.extra_scenarios:
        opts.extra_scenarios = os.path.abspath(opts.extra_scenarios)
        if not os.path.isdir(opts.extra_scenarios):
            raise SetupError(f"EXTRA_SCENARIOS={opts.extra_scenarios} is not a directory")
    if opts.floor != "measure":
        try:
            if float(opts.floor) <= 0:
                raise ValueError
        except ValueError:
            raise SetupError(f"FLOOR must be 'measure' or positive seconds, "
                             f"not {opts.floor!r}") from None
    return opts


def main(argv=None):
    """The run, with the committed host scenarios in a temporary directory
    that every way out removes (the run directory keeps its own copy)."""
    hosts_tmp = tempfile.mkdtemp(prefix="egress-hosts-")
    try:
        return run_matrix(argv, hosts_tmp)
    finally:
        shutil.rmtree(hosts_tmp, ignore_errors=True)


def run_matrix(argv, hosts_tmp):
    t_start = time.monotonic()
    started = datetime.datetime.now(datetime.timezone.utc).isoformat()
    try:
        opts = parse_args(argv)
        commit = SH.source_commit(TOP)   # the tree that runs, recorded before it can change
        kernels = select_kernels(globs(opts.kernels))
        known = S.live_kernels(TOP)
        paths = [os.path.join(TOP, "scenarios")]
        if opts.extra_scenarios:
            paths.append(opts.extra_scenarios)
        scenarios = S.load(paths, known)
        project = [sc for sc in scenarios if os.path.dirname(os.path.abspath(sc.path)) == paths[0]]
        host_files, hosts = H.committed_hosts(HOSTS_DIR, project, H.debian_kernels(LOCK),
                                              hosts_tmp)
        host_of = {}
        if host_files:
            for sc in S.load([hosts_tmp], known):
                host_of[sc.name] = host_files[os.path.abspath(sc.path)]
                scenarios.append(sc)
        selected = select_cells(scenarios, globs(opts.scenarios), kernels)
        # A committed host's cells run only on the kernel that stands for it.
        selected = [(sc, c, a, k) for sc, c, a, k in selected
                    if sc.name not in host_of or host_of[sc.name][1] == k]
        selection = [S.cell_id(c, k) for _, c, _, k in selected]
        mine = set(SH.select([(S.cell_id(c, k), sc.get("timeout", str(C.DEFAULT_TIMEOUT)))
                              for sc, c, _, k in selected], opts.shard_i, opts.shard_n))
        selected = [x for x in selected if S.cell_id(x[1], x[3]) in mine]
    except (SetupError, RuntimeError, S.ScenarioError, H.ProfileError, OSError) as e:
        log(f"error: {e}")
        return 2
    for name, h in hosts.items():
        if "*" in h["not_replayed"]:
            log(f"host profile {name}: not replayed: {h['not_replayed']['*']}")
        elif h["kernel"] not in kernels and h["replayed"]:
            log(f"host profile {name}: stands for kernel {h['kernel']}, which KERNELS does "
                f"not select: not run")

    if opts.list:
        for sc, cname, axes, k in selected:
            v = sc.resolve(k, axes)
            print(f"{S.cell_id(cname, k)}  {v.verdict}  # {v.why}")
        print(f"{len(selected)} cells")
        return 0

    run_id = opts.run_id or datetime.datetime.now(datetime.timezone.utc).strftime(
        "%Y%m%dT%H%M%SZ")
    rdir = os.path.join(os.path.abspath(opts.results), run_id)
    try:
        if os.path.exists(rdir):
            raise SetupError(f"{rdir} exists: choose another RUN_ID")
        try:
            opts.bundle = BU.load(opts.supervisor)
        except BU.BundleError as e:
            raise SetupError(f"SUPERVISOR={opts.supervisor} (make supervisor, or "
                             f"SUPERVISOR=FILE|DIR):\n{e}") from None
        if not os.access(opts.runner, os.X_OK):
            raise SetupError(f"{opts.runner} is missing or not executable (the per-cell "
                             f"runner)")
        os.makedirs(os.path.join(rdir, "cells"))
        os.makedirs(os.path.join(rdir, "kernels"))
        # Everything after this boots the run's own copy: a supervisor
        # rebuilt while the matrix runs would change later kernels' images.
        try:
            opts.supervisor, opts.bundle = BU.snapshot(opts.bundle, os.path.join(rdir, "bundle"))
        except BU.BundleError as e:
            raise SetupError(str(e)) from None
        if opts.shard_n > 1:
            log(f"shard {opts.shard_i}/{opts.shard_n}: {len(selected)} of {len(selection)} "
                f"selected cells")
        log(f"run {run_id}: {len(selected)} cells ({len(kernels)} kernels), {opts.jobs} "
            f"VMs at once, supervisor {opts.supervisor_source}; results in {rdir}")
        # Only the kernels the run selected are fetched or built; a build
        # is announced with its cost before anything starts.
        for k in kernels:
            plan = K.kernel_plan(k)
            if plan.startswith("build"):
                log(f"building {k}: about {plan.split()[1]} min on 2 cores, cached afterwards")
            elif plan == "fetch":
                log(f"fetching {k} from Debian's registry (cached afterwards)")
        kinfo = {}
        for k in kernels:
            # A kernel that cannot be fetched or built fails its own cells
            # (infra-error, with the reason), not the whole run.
            try:
                kinfo[k] = K.kernel_info(k)
            except SetupError as e:
                log(f"kernel {k} unavailable, its cells are infra-errors: {e}")
                kinfo[k] = {"name": k, "path": None, "sha256": None, "machine": None,
                            "description": None, "version": None, "release": None,
                            "config": None, "error": str(e)}
                continue
            if kinfo[k]["config"]:
                shutil.copy2(kinfo[k]["config"], os.path.join(rdir, "kernels", f"{k}.config"))
            else:
                log(f"kernel {k}: no .config beside {kinfo[k]['path']}; not kept")
        opts.accel_choice = prove_accelerator(kinfo, kernels, opts.accel, rdir)
        print(L.accel_line(opts.accel_choice), flush=True)
        agents = agent_sources(scenarios, opts.extra_scenarios)
        # Every selected cell's file goes into one initramfs (ids carry the
        # kernel, so the cells of every kernel share the image).
        cells_dir = os.path.join(rdir, "cellfiles")
        os.makedirs(cells_dir)
        cells = []
        # Each verdict is resolved for the bundle's design traits (its
        # manifest's `design`; ours and a bundle that declares none: all).
        design = tuple(opts.bundle.get("design", C.OUR_DESIGN))
        for sc, cname, axes, k in selected:
            cid, text = S.compile_cell(sc, axes, k, design)
            cf = os.path.join(cells_dir, cid + ".cell")
            with open(cf, "w", encoding="utf-8") as f:
                f.write(text)
            v = sc.resolve(k, axes, design)
            d = os.path.join(rdir, "cells", cid)
            os.makedirs(d)
            cells.append({"id": cid, "scenario": sc.name, "scenario_cell": cname,
                          "host_profile": host_of.get(sc.name, (None,))[0],
                          "axes": axes, "kernel": k, "expected": v.verdict,
                          # What cell_result may also call ok, on the ground
                          # truth (finished=, untried=: docs/scenarios.md).
                          "expected_also": [x for x in (v.finished, v.untried) if x],
                          "expected_why": v.why,
                          "expected_from": f"{os.path.relpath(sc.path, TOP)}:{v.line}",
                          "timeout": sc.get("timeout", str(C.DEFAULT_TIMEOUT)),
                          "isolation": sc.get("isolation", "batch"),
                          "cell_file": cf, "dir": d})
        index = {cid: n for n, cid in enumerate(sorted(c["id"] for c in cells), 1)}
        for c in cells:
            # The cell's line in the initramfs's /cells/index (build.sh
            # writes the ids in byte order, as sorted() orders str here).
            c["index"] = index[c["id"]]
            c["ptrace3"] = SC.boot_scoped_last(c)
        if opts.isolation == "batch":
            opts.costs_from, known, notes = SC.size_batches(cells, opts.costs, opts.results)
            for n in notes:
                log(n)
            log(f"batches sized by the guest times of {known} of {len(cells)} cells in "
                f"{opts.costs_from}" if opts.costs_from else
                "batches sized by the scenarios' declared timeouts")
        initrd = os.path.join(rdir, "initramfs.cpio")
        log("building the initramfs")
        initrd_s = build_initramfs(rdir, cells_dir, opts.supervisor, agents, initrd)
        log(f"initramfs {initrd} built in {initrd_s:.1f}s")
        for k in kernels:
            if kinfo[k]["path"]:
                kinfo[k]["initrd"] = kernel_initrd(initrd, kinfo[k], rdir)
    except (SetupError, L.LaunchError, RuntimeError, S.ScenarioError, OSError,
            SC.CostError) as e:
        log(f"error: {e}")
        return 2

    # From here a stop (a cancelled CI job: SIGTERM, SIGINT, SIGHUP) ends the
    # children's process groups and the run still writes what it saw: the
    # cells it decided, the rest not-run (schedule.Children). A floor being
    # measured finishes first (a few short boots).
    opts.children = SC.Children()
    for sig in STOP_SIGNALS:
        signal.signal(sig, lambda signum, _frame: opts.children.stop(signum))

    # The boot floor: an init that only powers off, on the same QEMU line
    # run-vm.sh uses (see floor.py), once per kernel of the run.
    floors = {}
    floor_samples = {}
    floor_note = ""
    if opts.floor == "measure":
        try:
            floors, floor_samples = F.measure([kinfo[k] for k in kernels if kinfo[k]["path"]],
                                              os.path.join(rdir, "floor"), opts.jobs,
                                              opts.accel_choice["accelerator"])
        except F.FloorError as e:
            floor_note = f"floor not measured: {e}"
            log(floor_note)
    else:
        floors = {k: float(opts.floor) for k in kernels}
        floor_note = f"floor given as {opts.floor}s (FLOOR)"

    progress = SC.Progress(len(cells), opts.jobs)
    t_cells = time.monotonic()
    opts.rdir = rdir
    batches = SC.run_cells(cells, kinfo, opts, progress)
    cells_wall = time.monotonic() - t_cells
    shutil.copytree(hosts_tmp, os.path.join(rdir, "host-scenarios"))
    for c in cells:
        if c["host_profile"]:
            distrust_unlike_host(c, hosts[c["host_profile"]]["data"])

    # ---- the report
    counts = {o: sum(c["outcome"] == o for c in cells) for o in OUTCOMES}
    floor_total = sum(floors.get(c["kernel"], 0) for c in cells)
    # Fewer cells than VMs cannot use every VM.
    par = max(1, min(opts.jobs, len(cells)))
    ideal = floor_total / par if floors and all(c["kernel"] in floors for c in cells) \
        else None
    ratio = cells_wall / ideal if ideal else None
    kfeat = {k: SUM.kernel_features(cells, k) for k in kernels}
    resets = SC.reset_failures(batches)
    summary = {
        "format": "egress-matrix-summary/1", "run_id": run_id,
        "started": started,
        # sha256: the file's for a file bundle (as before), the bundle digest
        # for a directory; "bundle" has every file's sha256.
        "supervisor": {"path": opts.supervisor_source, "copy": opts.supervisor,
                       "sha256": C.sha256_file(opts.supervisor)
                       if opts.bundle["kind"] == "file" else opts.bundle["digest"]},
        "bundle": BU.record(opts.bundle),
        "extra_scenarios": opts.extra_scenarios or None, "jobs": opts.jobs,
        "isolation": opts.isolation,
        # The earlier run whose guest times sized the batches (None: timeouts).
        "costs_from": opts.costs_from,
        # The signal that stopped the run (its undecided cells are not-run), or None.
        "stopped": opts.children.signal,
        "boots": len(batches) if opts.isolation == "batch" else len(cells),
        "batches": batches,
        # Every reset between cells that failed its proof, with the cell
        # after which it ran: the run exits 1 for any.
        "reset_failures": resets,
        "accelerator": opts.accel_choice,
        "host_profiles": {n: {k: v for k, v in h.items() if k != "data"}
                          for n, h in hosts.items()},
        "filters": {"kernels": opts.kernels, "scenarios": opts.scenarios},
        "kernels": {k: dict(kinfo[k], features_in_guest=kfeat[k]) for k in kernels},
        "floor_s": floors, "floor_samples_s": floor_samples, "floor_note": floor_note,
        "cells_wall_s": round(cells_wall, 2), "ideal_s": round(ideal, 2) if ideal else None,
        "wall_over_floor": round(ratio, 3) if ratio else None,
        "total_wall_s": round(time.monotonic() - t_start, 2),
        "counts": counts,
        "shard": SH.record(opts.shard_i, opts.shard_n, selection,
                           SH.scenario_set_digest([sc.path for sc in scenarios]),
                           commit),
        "cells": [{
            "cell": c["id"], "scenario": c["scenario"], "scenario_cell": c["scenario_cell"],
            "axes": c["axes"], "kernel": c["kernel"], "host_profile": c["host_profile"],
            "kernel_version": kinfo[c["kernel"]]["version"],
            "kernel_release": kinfo[c["kernel"]]["release"],
            "kernel_sha256": kinfo[c["kernel"]]["sha256"],
            "qemu_version": c["qemu_version"], "accelerator": c["accelerator"],
            "accelerator_reason": c["accelerator_reason"],
            "qemu_cmdline": c["qemu_cmdline"], "boot_s": c["boot_s"], "run_s": c["run_s"],
            "wall_s": c["wall_s"], "expected": c["expected"],
            "expected_why": c["expected_why"], "expected_from": c["expected_from"],
            "got": c["got"], "supervisor_exit": c["supervisor_exit"],
            "outcome": c["outcome"], "reason": c["reason"], "splats": c["splats"],
            "features": c["features"], "preconditions": c["preconditions"],
            "rerun": c["rerun"], "runner_rerun": c["runner_rerun"],
            "batch": c["batch"], "position": c["position"], "boot_cells": c["boot_cells"],
            "batch_rerun": c["batch_rerun"], "boots": c.get("boots", []),
            "rerun_reason": c.get("rerun_reason"), "host_cpu_s": c.get("host_cpu_s"),
            "guest_s": SC.guest_seconds(c["dir"]), "cost_est": c.get("cost"),
            "dir": os.path.relpath(c["dir"], rdir)} for c in cells],
    }
    with open(os.path.join(rdir, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    SUM.write_junit(os.path.join(rdir, "junit.xml"), cells, cells_wall, opts.accel_choice)
    report_note = None
    try:
        diff = MD.diff(MD.load(opts.base), summary) if opts.base else None
        RH.write(rdir, summary, OUTCOMES, diff)
    except (OSError, MD.DiffError) as e:
        diff, report_note = None, f"index.html not written: {e}"
        log(f"error: {report_note}")
    latest = os.path.join(os.path.dirname(rdir), "latest")
    if os.path.islink(latest) or not os.path.exists(latest):
        # A new link renamed over the old one: two runs ending together
        # (bundle-smoke's, side by side) must not meet between an unlink
        # and a symlink (FileExistsError after every cell was decided).
        tmp_link = f"{latest}.{os.getpid()}"
        if os.path.lexists(tmp_link):
            os.unlink(tmp_link)
        os.symlink(run_id, tmp_link)
        os.replace(tmp_link, latest)

    print()
    print("features read inside each booted guest:")
    kw = max(len(k) for k in kernels)
    for k in kernels:
        print(f"  {k.ljust(kw)}  {SUM.features_line(kfeat[k])}")
    print()
    print(SUM.table(cells, kernels))
    print()
    for k in kernels:
        differ = [n for n, f in kfeat[k]["features"].items() if not f["agree"]]
        if differ:
            print(f"FEATURES DIFFER between boots of {k}: {', '.join(differ)} "
                  f"(one image should read the same every boot; see summary.json)")
    bad = [c for c in cells if c["outcome"] not in GOOD_OUTCOMES]
    for c in bad:
        if c["outcome"] not in LOUD_OUTCOMES:
            print(f"{c['outcome'].upper()}: {c['id']}: expected {c['expected']}, got "
                  f"{c['got']}: {c['reason']}\n    rerun: {c['rerun']}")
    skipped = [c for c in cells if c["outcome"] == "skipped"]
    for c in skipped:
        print(f"skipped: {c['id']}: {c['reason']}")
    greens = [c for c in cells if c["outcome"] in LOUD_OUTCOMES]
    if greens:
        bar = "!" * 72
        print(f"\n{bar}\n!!! FALSE GREEN / ORACLE MISMATCH: a verdict that says things are "
              f"fine where they are not ({len(greens)} cells)\n{bar}")
        for c in greens:
            print(f"!!! {c['outcome'].upper()} {c['id']}: expected {c['expected']} "
                  f"({c['expected_why']}), got {c['got']}"
                  f"\n!!!     {c['reason']}\n!!!     rerun: {c['rerun']}")
        print(bar)
    stopped = opts.children.signal
    if stopped:
        print(f"\nSTOPPED by {stopped}: {counts['not-run']} of {len(cells)} cells not run; "
              f"the summary has the {len(cells) - counts['not-run']} the run decided")
    parts = [f"{n} {o}" for o, n in counts.items() if n]
    print(f"\nmatrix {run_id}: {len(cells)} cells: {', '.join(parts)}; "
          f"{len(bad)} not ok; results in {rdir}")
    boots = len(batches) if opts.isolation == "batch" else len(cells)
    cpu = [c["host_cpu_s"] for c in cells if c.get("host_cpu_s") is not None]
    print(f"ISOLATION={opts.isolation}: {boots} boots for {len(cells)} cells"
          + (f", {sum(b['rerun_of'] is not None for b in batches)} of them reruns after a "
             f"boot ended early" if batches else "")
          + (f"; host CPU per cell {sum(cpu) / len(cpu):.3f} s (the runner's own process)"
             if cpu else ""))
    for kernel, fails in sorted(SC.reset_failures_by_kernel(resets).items()):
        total = sum(b["kernel"] == kernel for b in batches)
        print(f"RESET FAILED on {kernel}: {len(fails)} of {total} batches ended by a failed "
              f"reset (first: after {fails[0]['after']}: {fails[0]['detail']})")
    if ratio:
        fl = ", ".join(f"{k} {v:.2f}s" for k, v in floors.items())
        print(f"wall {cells_wall:.1f}s vs {len(cells)} cells x floor / {par} VMs = "
              f"{ideal:.1f}s: {ratio:.2f}x (target <= 1.3x; floor per kernel: {fl})")
    else:
        print(f"wall {cells_wall:.1f}s; no wall/floor ratio: {floor_note}")
    if diff:
        print(MD.text(diff))
    print(f"report: {os.path.join(rdir, 'index.html')}" if not report_note else
          f"REPORT NOT WRITTEN: {report_note}")
    if resets:
        print(f"ISOLATION NOT PROVEN: {len(resets)} reset(s) between cells failed "
              f"(the cells after each ran again in fresh boots, their outcomes stand); a "
              f"scenario that leaves what the reset cannot put back needs isolation = boot, "
              f"or the reset a repair")
    # The line tests/run-suites.sh counts (make test's vm-smoke suite).
    print(f"matrix: {counts['ok']} passed, {len(bad)} failed, {counts['skipped']} skipped")
    if stopped:
        return 128 + signal.Signals[stopped].value
    return 2 if report_note else 1 if bad or resets else 0


if __name__ == "__main__":
    sys.exit(main())
