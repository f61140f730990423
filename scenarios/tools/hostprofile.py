#!/usr/bin/env python3
"""Host profiles (docs/hostprofile.md) read by the appliance: validation with
errors naming the field, the matrix kernel that stands for the profile's,
the guest environment that stands for its credentials and container
profile, what the appliance cannot reproduce, and the scenarios pinned to a
host. No VM: it reads profiles, scenario files and the kernel lock. `make
repro` (repro.py) and the matrix (committed profiles, scenarios/hosts/)
drive it.

Python 3 standard library only.
"""

import base64
import glob
import gzip
import json
import os
import re

FORMAT = "egress-hostprofile/1"
ANSWER_RE = re.compile(r"^(ok|E[A-Z0-9]+)$")
TARGETS = ("child", "child_nodump", "reparented_grandchild")
PROBE_CALLS = ("listener", "process_vm_readv", "proc_mem", "pidfd_open", "pidfd_getfd",
               "id_valid")
# The calls whose refusal a container profile or the access rules cause:
# what the supervisor's own probe tries against its canary.
ACCESS_CALLS = ("process_vm_readv", "proc_mem", "pidfd_getfd")
CAP_SYS_PTRACE = 19
CAP_SYS_ADMIN = 21
CAP_MKNOD = 27
HANDOVERS = ("shared-table", "pidfd_getfd")
# Verdict-deciding options, and the custom matrix kernel that has the host's
# value where the Debian kernels do not.
VARIANT_FOR_OPTION = {
    ("CONFIG_SECURITY_YAMA", "n"): "no-yama",
    ("CONFIG_CROSS_MEMORY_ATTACH", "n"): "no-cross-memory-attach",
    ("CONFIG_SECCOMP_FILTER", "n"): "no-seccomp-filter",
}
COMPARED_OPTIONS = ("CONFIG_SECCOMP_FILTER", "CONFIG_SECURITY_YAMA",
                    "CONFIG_CROSS_MEMORY_ATTACH", "CONFIG_IA32_EMULATION",
                    "CONFIG_X86_X32_ABI", "CONFIG_IO_URING", "CONFIG_SECURITY_LANDLOCK")


# The axes a host replaces; a scenario without one of them was derived for
# its own fixed environment only, and is not replayed on another.
HOST_AXES = ("ptrace_scope", "user")
# Masks of a mechanism the supervisor's probe proves against its canary.
# Not unshare: where unshare(CLONE_FILES) is refused, the listener is taken
# with pidfd_getfd from a child whose table is its own from the clone
# (docs/design.md, "Handing the listener over"), so an unshare mask alone
# is survivable; with pidfd_getfd masked too, that hand-over fails.
PROBE_FAILING_MASKS = ("process_vm_readv", "pidfd_getfd", "pidfd_open")
# Answers of the profile that are not per target, compared as they are.
GLOBAL_PROBES = ("io_uring_setup", "userns")
# The caller the guest runs in a host replay: it writes the guest's own
# profile to the profile channel before the supervisor starts.
PROFILE_LAUNCHER = "/agents/profile-launcher"


class ProfileError(Exception):
    """A profile that cannot be used: the message names the file and field."""


def _need(cond, path, field, msg):
    if not cond:
        raise ProfileError(f"{path}: field {field}: {msg}")


def _get(p, path, dotted, types, nullable=False):
    """The value at a dotted path, of one of `types` (bool never counts as
    int), or ProfileError naming the field."""
    cur = p
    for part in dotted.split("."):
        _need(isinstance(cur, dict) and part in cur, path, dotted, "missing")
        cur = cur[part]
    if cur is None:
        _need(nullable, path, dotted, "is null")
        return None
    _need(isinstance(cur, types) and not isinstance(cur, bool), path, dotted,
          f"has the wrong type ({type(cur).__name__})")
    return cur


def load(path):
    """The profile at `path`, validated. ProfileError names the field of
    anything unknown, missing, of the wrong type or inconsistent."""
    try:
        with open(path, encoding="utf-8") as f:
            p = json.load(f)
    except OSError as e:
        raise ProfileError(f"{path}: cannot read it: {e.strerror}") from None
    except ValueError as e:
        raise ProfileError(f"{path}: not JSON (truncated or hand-edited?): {e}") from None
    _need(isinstance(p, dict), path, "(top)", "not an object")
    fmt = p.get("format")
    _need(fmt == FORMAT, path, "format",
          f"{fmt!r} is not a schema this appliance reads (want {FORMAT!r})")
    arch = _get(p, path, "arch", str)
    _need(arch == "x86_64", path, "arch",
          f"{arch!r}: the matrix boots x86_64 kernels only; capture on an x86_64 host")
    release = _get(p, path, "kernel.release", str)
    _need(re.match(r"^\d+\.\d+", release), path, "kernel.release",
          f"{release!r} does not start with MAJOR.MINOR")
    scope = _get(p, path, "yama_ptrace_scope", int, nullable=True)
    _need(scope is None or 0 <= scope <= 3, path, "yama_ptrace_scope", f"{scope} is not 0-3")
    for key in ("uid", "gid"):
        ids = _get(p, path, f"ids.{key}", list)
        _need(len(ids) == 4 and all(isinstance(i, int) and i >= 0 for i in ids), path,
              f"ids.{key}", "want four ids (real, effective, saved, filesystem)")
    for key in ("inheritable", "permitted", "effective", "bounding", "ambient"):
        v = _get(p, path, f"capabilities.{key}", str)
        _need(re.match(r"^[0-9a-f]{16}$", v), path, f"capabilities.{key}",
              f"{v!r} is not 16 hex digits")
    caps = {k: int(p["capabilities"][k], 16) for k in ("permitted", "effective")}
    _need(caps["effective"] & ~caps["permitted"] == 0, path, "capabilities.effective",
          "holds capabilities that are not permitted (an inconsistent, edited profile)")
    _get(p, path, "seccomp.mode", int, nullable=True)
    probes = _get(p, path, "probes", dict)
    for t in TARGETS:
        _need(isinstance(probes.get(t), dict), path, f"probes.{t}", "missing")
        for call in PROBE_CALLS:
            v = probes[t].get(call, "missing")
            _need(v is None or (isinstance(v, str) and ANSWER_RE.match(v)), path,
                  f"probes.{t}.{call}", f"{v!r} is not ok, an errno name or null")
        # Profiles from before the pidfd_getfd hand-over have no `handover`:
        # read as null (not said).
        v = probes[t].get("handover")
        _need(v is None or v in HANDOVERS, path, f"probes.{t}.handover",
              f"{v!r} is not {' or '.join(HANDOVERS)} or null")
    return p


def config_options(p):
    """{CONFIG_X: value} of the host's kernel as far as the profile knows
    it, or None when its config is unknown."""
    cfg = p["kernel"].get("config") or {}
    if isinstance(cfg.get("options"), dict):
        return dict(cfg["options"])
    if cfg.get("gzip_base64"):
        try:
            text = gzip.decompress(base64.b64decode(cfg["gzip_base64"])).decode("utf-8",
                                                                                 "replace")
        except (ValueError, OSError, EOFError):
            return None
        return parse_config(text)
    return None


def parse_config(text):
    """A .config's options: {CONFIG_X: value}, "n" for "is not set"."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^(CONFIG_[A-Za-z0-9_]+)=(.*)$", line)
        if m:
            out[m.group(1)] = m.group(2).strip('"')
        m = re.match(r"^# (CONFIG_[A-Za-z0-9_]+) is not set$", line)
        if m:
            out[m.group(1)] = "n"
    return out


def _series(release):
    m = re.match(r"^(\d+)\.(\d+)", release or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def choose_kernel(p, kernels):
    """(name, why) of the matrix kernel that stands for the profile's:
    the same MAJOR.MINOR series (the same flavour, cloud or not, first),
    else the nearest series. kernels: [{name, release}] of the matrix."""
    want = _series(p["kernel"]["release"])
    cloud = "cloud" in p["kernel"]["release"]
    cands = [(k, _series(k.get("release") or "")) for k in kernels]
    cands = [(k, s) for k, s in cands if s]
    if not cands:
        raise ProfileError("no matrix kernel has a known release to compare with")
    same = [k for k, s in cands if s == want]
    if same:
        same.sort(key=lambda k: ("cloud" in k["name"]) != cloud)
        k = same[0]
        return k["name"], (f"same series {want[0]}.{want[1]} as the host's "
                           f"{p['kernel']['release']} ({k['release']})")
    k, s = min(cands, key=lambda ks: abs((ks[1][0] * 100 + ks[1][1]) - (want[0] * 100 + want[1])))
    return k["name"], (f"no {want[0]}.{want[1]} kernel in the matrix: the nearest series, "
                       f"{s[0]}.{s[1]} ({k['release']}), stands for {p['kernel']['release']}")


def config_differences(host, guest):
    """[(option, host value, guest value)] for the verdict-deciding options
    where both are known and differ."""
    if host is None or guest is None:
        return []
    out = []
    for o in COMPARED_OPTIONS:
        h, g = host.get(o, "n"), guest.get(o, "n")
        if h != g:
            out.append((o, h, g))
    return out


def matching_variants(diffs):
    """Custom kernels that have the host's value of a differing option."""
    return sorted({VARIANT_FOR_OPTION[(o, h)] for o, h, _ in diffs
                   if (o, h) in VARIANT_FOR_OPTION})


def rule_answer(p, target, call):
    """What the access rules predict for this profile's own caller
    (kernel-facts.md): ok, or the refusal."""
    cap = int(p["capabilities"]["effective"], 16) >> CAP_SYS_PTRACE & 1
    scope = p["yama_ptrace_scope"]
    refused = "EACCES" if call == "proc_mem" else "EPERM"
    if call not in ACCESS_CALLS:
        return "ok"
    if scope == 3 or (scope == 2 and not cap) or \
            (target == "child_nodump" and not cap) or \
            (scope == 1 and target == "reparented_grandchild" and not cap):
        return refused
    return "ok"


def environment(p):
    """How the guest stands for the host: {"ptrace_scope": 0-3, "user":
    root|nocap|uid1000, "masks": ["SYSCALL:ERRNO"], "notes": [...],
    "unreproducible": [...]}."""
    notes, unrepro, masks = [], [], []
    scope = p["yama_ptrace_scope"]
    if scope is None:
        notes.append("the host has no Yama: replayed as ptrace_scope 0, which adds nothing to "
                     "the classic rules either")
        scope = 0
    uid = p["ids"]["uid"][1]
    cap = int(p["capabilities"]["effective"], 16) >> CAP_SYS_PTRACE & 1
    if uid == 0:
        user = "root" if cap else "nocap"
        if cap and int(p["capabilities"]["effective"], 16) != int(p["capabilities"]["bounding"], 16):
            notes.append("the host's root lacks some capabilities besides CAP_SYS_PTRACE: only "
                         "CAP_SYS_PTRACE decides what the supervisor can read")
    else:
        user = "uid1000"
        if uid != 1000:
            notes.append(f"uid {uid} replayed as uid 1000 (the rules only ask: root or not, "
                         f"same uid as the agent)")
    child = p["probes"]["child"]
    for call in ("process_vm_readv", "pidfd_getfd", "pidfd_open"):
        got = child.get(call)
        if got in ("EPERM", "ENOSYS") and rule_answer(p, "child", call) == "ok":
            masks.append(f"{call}:{got}")
    probes = p["probes"]
    # io_uring refused on the host (a container profile: Docker's default
    # since 25.0; or kernel.io_uring_disabled): the same answer by a mask.
    if probes.get("io_uring_setup") in ("EPERM", "ENOSYS"):
        masks.append(f"io_uring_setup:{probes['io_uring_setup']}")
    sysctls = []
    userns = probes.get("userns")
    if userns == "EPERM" and (uid == 0 or child.get("handover") == "pidfd_getfd"):
        # root needs no privilege for a user namespace, and nothing but a
        # seccomp filter refuses unshare(CLONE_FILES) (the target's handover
        # is then pidfd_getfd): the refusal is a seccomp profile's (Docker's
        # default refuses unshare without CAP_SYS_ADMIN), which refuses
        # every unshare, as the mask does.
        masks.append("unshare:EPERM")
    elif userns == "EPERM" and (p.get("sysctls") or {}).get("kernel.unprivileged_userns_clone") == 0:
        sysctls.append("kernel.unprivileged_userns_clone=0")
    elif userns == "ENOSPC" and (p.get("sysctls") or {}).get("user.max_user_namespaces") == 0:
        # A hardened host or a container runtime's limit: the uid-1000
        # supervisor's containment falls back to the subreaper there.
        sysctls.append("user.max_user_namespaces=0")
    elif userns not in ("ok", None):
        notes.append(f"the host refuses a user namespace ({userns}) for a reason the guest "
                     f"does not reproduce: the guest profile's answer will differ")
    refusals = []
    if uid == 0 and not root_can_contain(int(p["capabilities"]["effective"], 16)):
        # The guest's root and nocap keep CAP_SYS_ADMIN and CAP_MKNOD
        # (nocap drops only CAP_SYS_PTRACE), so its supervisor gives the
        # agent a pid namespace and a /dev of its own where the host's
        # cannot: the refusal is derived, not replayed.
        why = ("a root supervisor without CAP_SYS_ADMIN cannot give a root agent a pid "
               "namespace of its own, nor one without CAP_MKNOD a /dev of its own (its "
               "probe's containment is EPERM)")
        if any(m.split(":")[0] in PROBE_FAILING_MASKS for m in masks):
            refusals.append(why)
            notes.append(f"{why}: the guest's root keeps CAP_SYS_ADMIN, so the guest refuses "
                         f"the run for the masks alone; derived for both")
        else:
            unrepro.append(f"{why}, and the guest's root keeps CAP_SYS_ADMIN: the guest "
                           f"would contain an agent the host cannot")
    listener = child.get("listener")
    if listener == "EBUSY":
        unrepro.append("the host already had a notification listener in the filter chain "
                       "(EBUSY): the guest cannot install one around the supervisor yet")
    ns = p.get("namespaces") or {}
    if (ns.get("user") or {}).get("init") is False:
        unrepro.append("the host ran in a user namespace other than init's: the guest runs "
                       "the supervisor in init's")
    return {"ptrace_scope": scope, "user": user, "masks": masks, "sysctls": sysctls,
            "refusals": refusals, "notes": notes, "unreproducible": unrepro}


def root_can_contain(caps):
    """Whether a root supervisor with these effective capabilities can
    contain a root agent: CAP_SYS_ADMIN for its pid and mount namespace and
    the remounts, CAP_MKNOD for the nodes of its own /dev
    (supervisor/rootfs.c)."""
    return bool(caps >> CAP_SYS_ADMIN & 1 and caps >> CAP_MKNOD & 1)


def probe_differences(p, report_probe):
    """[text] for every answer of the supervisor's own probe in the guest
    that differs from the host's child probe ("host: X EPERM on the child;
    guest: ok")."""
    out = []
    host = p["probes"]["child"]
    for call in PROBE_CALLS:
        h, g = host.get(call), (report_probe or {}).get(call)
        if h is not None and g is not None and h != g:
            out.append(f"host: {call} {h} on the child; guest: {g}")
    return out


def guest_profile_differences(p, data):
    """[text] for every answer of the guest's own egress-hostprofile (the
    `guest_profile` section a replay cell emits, as bytes, or None) that
    differs from the host's: per target and per call (and the way the
    listener was handed over, where the host's profile says it), and the
    global probes ("host: pidfd_getfd EPERM on the child_nodump; guest:
    ok").
    A guest without a profile, or with one that is not a profile, is one
    difference: nothing was compared."""
    if not data:
        return ["the guest wrote no profile of its own to compare with the host's "
                "(guest_profile section missing)"]
    try:
        g = json.loads(data)
    except ValueError as e:
        return [f"the guest's profile is not JSON: {e}"]
    gp = g.get("probes") if isinstance(g, dict) else None
    if not isinstance(gp, dict):
        return ["the guest's profile has no probes"]
    out = []
    hp = p["probes"]
    for t in TARGETS:
        ht = hp.get(t) or {}
        gt = gp.get(t) if isinstance(gp.get(t), dict) else {}
        for call in ("start", "handover", "reparented") + PROBE_CALLS:
            # handover: not in profiles from before the hand-over
            if call not in ht or (call == "handover" and ht[call] is None):
                continue
            h, gv = ht.get(call), gt.get(call, "missing")
            if h != gv:
                out.append(f"host: {call} {h} on the {t}; guest: {gv}")
    for call in GLOBAL_PROBES:
        if call in hp and hp.get(call) != gp.get(call, "missing"):
            out.append(f"host: {call} {hp.get(call)}; guest: {gp.get(call, 'missing')}")
    return out


def replay_differences(p, guest_profile, report_probe):
    """Why a replay cell is not believed: the guest profile's differences
    from the host's, then the supervisor's own probe's (when its report
    has one: a supervisor without our report is judged by the profile
    alone). Empty when the guest stood for the host."""
    out = guest_profile_differences(p, guest_profile)
    if report_probe:
        out += [d for d in probe_differences(p, report_probe) if d not in out]
    return out


def enforce_summary(p):
    """One paragraph: can a supervisor enforce on this host, and if not,
    what is missing and what the host would have to change."""
    child = p["probes"]["child"]
    if child.get("start") not in ("ok", None):
        # A refused unshare(CLONE_FILES) is no reason by itself: the target
        # (like the supervisor's child) is then started with a table of its
        # own and hands its listener over with pidfd_getfd.
        return (f"a supervisor cannot enforce on this host: the probe's child could not be "
                f"started ({child.get('start')}); see the probe answers")
    bad = [(c, child.get(c)) for c in PROBE_CALLS if child.get(c) not in ("ok", None)]
    if child.get("process_vm_readv") == "ENOSYS" and child.get("proc_mem") == "ok":
        bad = [b for b in bad if b[0] != "process_vm_readv"]
    caps = int(p["capabilities"]["effective"], 16)
    no_admin_root = p["ids"]["uid"][1] == 0 and not root_can_contain(caps)
    if not bad and not no_admin_root:
        return ("a supervisor can enforce on this host: every mechanism worked against a "
                "child with the caller's credentials")
    hints = []
    scope = p["yama_ptrace_scope"]
    cap = caps >> CAP_SYS_PTRACE & 1
    if no_admin_root:
        hints.append("a root supervisor without CAP_SYS_ADMIN cannot give a root agent a pid "
                     "namespace of its own, nor one without CAP_MKNOD a /dev of its own: run "
                     "the job as a non-root user (contained by a user namespace, or the "
                     "subreaper and Landlock) or add CAP_SYS_ADMIN and CAP_MKNOD")
    if scope == 3:
        hints.append("Yama ptrace_scope 3 refuses everyone until reboot: boot with a lower scope")
    elif scope == 2 and not cap:
        hints.append("Yama ptrace_scope 2 needs CAP_SYS_PTRACE: grant it to the CI job, or "
                     "lower kernel.yama.ptrace_scope to 1")
    masked = [c for c, v in bad if v in ("EPERM", "ENOSYS") and c != "listener"
              and rule_answer(p, "child", c) == "ok"]
    if masked:
        hints.append(f"a seccomp profile refuses {', '.join(masked)} (Docker's default does "
                     f"without CAP_SYS_PTRACE): add CAP_SYS_PTRACE or allow those calls")
    if child.get("listener") not in ("ok", None) and child.get("handover") == "pidfd_getfd":
        hints.append(f"the listener could not be handed over ({child.get('listener')}): "
                     f"unshare(CLONE_FILES) is refused, so it is taken from the child with "
                     f"pidfd_getfd, which needs ptrace access to the caller's own child "
                     f"(add CAP_SYS_PTRACE, or allow pidfd_getfd)")
    elif child.get("listener") not in ("ok", None):
        hints.append(f"no notification listener ({child.get('listener')}): the kernel needs "
                     f"CONFIG_SECCOMP_FILTER and Linux >= 5.0, and no other listener in the chain")
    missing = ", ".join([f"{c} {v}" for c, v in bad]
                        + (["no pid namespace for a root agent"] if no_admin_root else []))
    return (f"a supervisor cannot enforce on this host ({missing}); "
            + ("; ".join(hints) if hints else "see the probe answers"))


def pin_when(when_line, env):
    """A `when` line for the host: each host-axis condition narrowed to the
    host's value, or None when it names none of them (validation refuses an
    override that can never match, or one naming a value the pinned axis
    no longer has)."""
    head, arrow, rest = when_line.partition("->")
    words = head.split()
    out = [words[0]]
    for c in words[1:]:
        key, _, vals = c.partition("=")
        if key in HOST_AXES:
            if str(env[key]) not in vals.split(","):
                return None
            c = f"{key}={env[key]}"
        out.append(c)
    return " ".join(out) + " " + arrow + rest


def host_name(scenario, profile=None):
    """host-SCENARIO (make repro) or host-PROFILE-SCENARIO (a committed
    profile in the matrix)."""
    return f"host-{profile}-{scenario}" if profile else f"host-{scenario}"


def host_scenario_text(sc, env, profile=None):
    """The scenario file pinned to the host: name host_name(), each host axis
    reduced to the host's value, the host's masks added and, when a mask
    breaks a mechanism the supervisor's probe proves, the verdict that
    follows first. None (with the reason) when the scenario has no
    derivation for the host's environment."""
    axes = {name: vals for name, vals, _ in sc.axes}
    for a in HOST_AXES:
        if a not in axes:
            return None, f"its verdicts are derived for a fixed {a}, not per host"
        if str(env[a]) not in axes[a]:
            return None, f"its verdicts are derived for {a} in {' '.join(axes[a])}, not {env[a]}"
    breaking = [m for m in env["masks"] if m.split(":")[0] in PROBE_FAILING_MASKS]
    refusals = env.get("refusals") or []
    lines, inserted = [], False
    with open(sc.path, encoding="utf-8") as f:
        for raw in f.read().splitlines():
            m = re.match(r"^\s*name\s*=", raw)
            a = re.match(r"^\s*axis\s+(\S+)\s*=", raw)
            ln = re.match(r"^\s*launcher\s*=\s*(.*)$", raw)
            if m:
                raw = f"name = {host_name(sc.name, profile)}"
                if "launcher" not in sc.fields:
                    raw += f"\nlauncher = {PROFILE_LAUNCHER}"
                raw += "\nguest_profile = yes"
            elif ln:
                # The profile is written first, then the scenario's own
                # caller runs as before.
                raw = f"launcher = {PROFILE_LAUNCHER} {ln.group(1)}"
            elif a and a.group(1) in HOST_AXES:
                raw = f"axis {a.group(1)} = {env[a.group(1)]}"
            elif re.match(r"^\s*when\b", raw):
                # An override for another environment cannot match here;
                # with a mask that breaks the probe, the derived verdict
                # below takes every cell.
                raw = None if breaking else pin_when(raw, env)
                if raw is None:
                    continue
            if not inserted and re.match(r"^\s*(when|expect)\b", raw):
                lines += [f"mask = {m}" for m in env["masks"]]
                lines += [f"sysctl = {x}" for x in env.get("sysctls", [])]
                if breaking:
                    lines.append(
                        f"when kernel=* -> capability-error: the host's container profile "
                        f"answers {', '.join(breaking)}, a mechanism the supervisor's probe "
                        f"proves against its canary, so the probe refuses the run"
                        + "".join(f"; and {r}" for r in refusals)
                        + " (derived from the host profile)")
                inserted = True
            lines.append(raw)
    return "\n".join(lines) + "\n", None


def debian_kernels(lock):
    """[{name, release}] of the Debian kernels in the lock file (the release
    from the package name: linux-image-RELEASE-unsigned)."""
    out = []
    with open(lock, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 4 and not line.startswith("#") and \
                    parts[1].startswith("linux-image-"):
                rel = parts[1][len("linux-image-"):]
                out.append({"name": parts[0], "release": re.sub(r"-unsigned$", "", rel)})
    return out


def committed_hosts(hosts_dir, scenarios, kernels, outdir):
    """The committed profiles (HOSTS_DIR/NAME.profile) as matrix scenarios:
    for each profile that the guest can stand for, every scenario derived
    per environment pinned to it (host-NAME-SCENARIO, written to outdir),
    on the one kernel that stands for the profile's.

    Returns ({scenario file: (profile name, kernel)}, {profile name:
    {"kernel", "why", "environment", "derived", "replayed", "not_replayed",
    "data" (the profile itself)}}).
    ProfileError for a profile that is not valid."""
    files, info = {}, {}
    for path in sorted(glob.glob(os.path.join(hosts_dir, "*.profile"))):
        name = os.path.basename(path)[:-len(".profile")]
        p = load(path)
        env = environment(p)
        kname, why = choose_kernel(p, kernels)
        entry = {"profile": os.path.relpath(path, os.path.dirname(hosts_dir)),
                 "derived": p.get("derived"), "kernel": kname, "why": why,
                 "environment": env, "replayed": [], "not_replayed": {}, "data": p}
        info[name] = entry
        if env["unreproducible"]:
            entry["not_replayed"]["*"] = "; ".join(env["unreproducible"])
            continue
        for sc in scenarios:
            text, reason = host_scenario_text(sc, env, profile=name)
            if text is None:
                entry["not_replayed"][sc.name] = reason
                continue
            out = os.path.abspath(os.path.join(outdir, f"{host_name(sc.name, name)}.scenario"))
            with open(out, "w", encoding="utf-8") as f:
                f.write(text)
            files[out] = (name, kname)
            entry["replayed"].append(sc.name)
    return files, info
