"""Integration tests: a root agent's view of the host's files (issue 11
class 5; hostile review h-attack18's ways past it).

The caller's descriptors 0-2, a mount stacked on the root, a working
directory getcwd cannot name, and a kernel whose statx has no mount id.
The reproductions are the review's own (tests/review/ha18-*.sh), each run
against the supervisor and against the mutant that reopens it.

Registered into harness.TESTS when run.py imports it."""

import os
import re
import shutil
import subprocess
import tempfile

from harness import SV, Skip, expect_outcome, mutant_binary, review, test


def require_root_and(ctx, *tools):
    if os.geteuid() != 0:
        raise Skip("needs root: the class is a root agent")
    missing = [t for t in tools if not shutil.which(t)]
    if missing:
        raise Skip("needs %s" % ", ".join(missing))


@test(timeout=180)
def root_agent_refuses_stdio_that_leads_to_the_host_files(ctx):
    # ha18-stdio.sh: a directory, a file given for reading and a loop device
    # given for reading on stdin. Each is refused (capability-error) and
    # the host's directory, file and image are untouched; mutant
    # root-stdio-open writes all three.
    require_root_and(ctx, "losetup", "gcc")
    out = review(ctx, "ha18-stdio.sh", SV)
    ctx.expect_eq(out.count("supervisor exit 3"), 3, "three refusals: %s" % out[-800:])
    ctx.expect("host sees: cat:" in out, "the directory got a file: %s" % out[-800:])
    ctx.expect("host sees: original" in out, "the file was changed: %s" % out[-800:])
    ctx.expect("image starts: HA18-BLOCK" not in out, "the block device was written: %s" % out[-800:])
    out = review(ctx, "ha18-stdio.sh", mutant_binary("root-stdio-open"))
    ctx.expect("host sees: HA18-FILE" in out and "image starts: HA18-BLOCK" in out,
               "root-stdio-open mutant: %s" % out[-800:])


@test()
def root_agent_runs_with_pipes_null_and_files_it_may_write_on_stdio(ctx):
    # The false reds the refusal must not make: /dev/null, a pipe, a file
    # under a declared path given for reading, a file given for writing.
    if os.geteuid() != 0:
        raise Skip("needs root: the class is a root agent")
    decl = os.path.join(ctx.tmp, "input")
    os.mkdir(decl)
    inp = os.path.join(decl, "in.txt")
    with open(inp, "w") as f:
        f.write("input\n")
    outside = tempfile.mkdtemp(prefix="egress-it-outside-")
    ctx.closers.append(lambda: shutil.rmtree(outside, ignore_errors=True))
    logfile = os.path.join(outside, "out.log")
    cases = [("/dev/null", subprocess.DEVNULL, None),
             ("a pipe", subprocess.PIPE, None),
             ("a declared file for reading", "in", None),
             ("an undeclared file for writing", subprocess.DEVNULL, "out")]
    for what, stdin, stdout in cases:
        argv = [SV, "--writable", ctx.tmp, "--", "/bin/sh", "-c", "cat >/dev/null; echo ran"]
        ctx.last_argv = argv
        fin = open(inp) if stdin == "in" else None
        fout = open(logfile, "w") if stdout == "out" else None
        try:
            if stdin == subprocess.PIPE:
                p = subprocess.run(argv, input="", stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, timeout=30)
            else:
                p = subprocess.run(argv, stdin=fin or stdin, stdout=fout or subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, timeout=30)
        finally:
            for f in (fin, fout):
                if f:
                    f.close()
        ctx.expect_eq(p.returncode, 0, "%s: exit status (%s)" % (what, p.stderr[-300:]))
    with open(logfile) as f:
        ctx.expect_eq(f.read(), "ran\n", "the agent's stdout in the undeclared log file")


@test(timeout=90)
def root_agent_refused_with_a_writable_mount_stacked_on_its_root(ctx):
    # ha18-rootstack.sh: the caller's namespace has `mount --bind / /`.
    # statx("/") names the mount beneath, but ".." from any directory lands
    # on the one on top: it is judged, found writable, and the run refused.
    # Mutant root-stack-covered takes it as covered: the marker is written.
    require_root_and(ctx, "unshare")
    out = review(ctx, "ha18-rootstack.sh", SV)
    ctx.expect("supervisor exit 3" in out, "want a refusal: %s" % out[-600:])
    written = re.compile(r"^-\S+ .* /var/tmp/ha18/rootstack-marker$", re.M)
    ctx.expect(not written.search(out), "the marker was written: %s" % out[-600:])
    out = review(ctx, "ha18-rootstack.sh", mutant_binary("root-stack-covered"))
    ctx.expect("supervisor exit 0" in out and written.search(out),
               "root-stack-covered mutant: %s" % out[-600:])


@test(timeout=120)
def root_agent_refused_when_its_working_directory_cannot_be_named(ctx):
    # ha18-cwd.sh: a working directory removed before the run, and one
    # whose path is longer than getcwd's buffer, both in the host's
    # /dev/shm (under the /dev the agent's namespace replaces). Refused
    # (capability-error), nothing made there; mutant cwd-unnamed-kept
    # leaves the agent in the caller's mount and it writes the markers.
    require_root_and(ctx, "gcc")
    out = review(ctx, "ha18-cwd.sh", SV)
    ctx.expect_eq(out.count("supervisor exit 3"), 2, "two refusals: %s" % out[-800:])
    ctx.expect("the working directory cannot be named" in out, "the message: %s" % out[-800:])
    ctx.expect("marker-" not in out, "a marker was made: %s" % out[-800:])
    out = review(ctx, "ha18-cwd.sh", mutant_binary("cwd-unnamed-kept"))
    ctx.expect("marker-removed" in out and "marker-long" in out,
               "cwd-unnamed-kept mutant: %s" % out[-800:])


@test()
def root_agent_contained_without_statx_mount_ids(ctx):
    # Before 5.8 statx gives no mount id (seam statx_mnt_id): the mounts
    # the supervisor covers itself (the old /dev and /proc) are known by
    # id, so a root agent still runs, still sees the host read-only, and
    # a pass that did not take is still refused.
    if os.geteuid() != 0:
        raise Skip("needs root: the class is a root agent")
    outside = tempfile.mkdtemp(prefix="egress-it-outside-")
    ctx.closers.append(lambda: shutil.rmtree(outside, ignore_errors=True))
    target = os.path.join(outside, "program")
    run = ctx.sv("fs-probe", ["write:" + target, "open-wr:/dev/null"], fault="statx_mnt_id:ENOSYS")
    expect_outcome(ctx, run, 0, "pass")
    res = {(l.get("call"), l.get("dest")): l.get("errno") if l.get("result") else "ok" for l in run.log}
    ctx.expect_eq(res.get(("write", target)), "EROFS", "an undeclared host file")
    ctx.expect_eq(res.get(("open_wr", "/dev/null")), "ok", "/dev/null")
    run = ctx.sv("no-network", [], fault="statx_mnt_id:ENOSYS,rootfs:EIO")
    expect_outcome(ctx, run, 3, "capability-error")


@test(timeout=120)
def root_agent_cannot_climb_out_of_its_supervisors_chroot(ctx):
    # ha19-chroot.sh: the supervisor runs in a chroot whose root is a mount
    # of its own, and its mountinfo shows only what is under it. The agent
    # would chroot into a subdirectory and climb ".." to the mounts outside,
    # which were never made read-only: CAP_SYS_CHROOT is dropped (and a
    # chrooted process cannot make a user namespace to get it back).
    # Mutant root-chroot-kept writes the host's marker.
    require_root_and(ctx, "unshare", "gcc")
    out = review(ctx, "ha19-chroot.sh", SV)
    ctx.expect("chroot /bin: Operation not permitted" in out, "chroot refused: %s" % out[-600:])
    ctx.expect("host sees: cat:" in out, "the marker outside the chroot: %s" % out[-600:])
    out = review(ctx, "ha19-chroot.sh", mutant_binary("root-chroot-kept"))
    ctx.expect("host sees: HA19-CHROOT" in out, "root-chroot-kept mutant: %s" % out[-600:])


@test(timeout=180)
def root_agent_neither_reaches_a_mount_under_a_declared_path_nor_rewrites_attributes(ctx):
    # ha19-stdio.sh. A: a file given for reading under a declared path but
    # on a mount of its own there (a bind of the host's etc) is refused:
    # the agent would reopen it on the caller's writable mount. B: file
    # capabilities on a file given for writing (CAP_SETFCAP dropped). D: an
    # append-only log given with >> keeps its flag and its history
    # (CAP_LINUX_IMMUTABLE dropped). Mutant root-file-caps-kept: B and D
    # go through.
    require_root_and(ctx, "unshare", "gcc", "chattr")
    out = review(ctx, "ha19-stdio.sh", SV)
    a = out.split("== B:")[0]
    ctx.expect("supervisor exit 3" in a and "root:x:0:0" in a, "A: %s" % a[-600:])
    ctx.expect("fsetxattr security.capability: Operation not permitted" in out, "B: %s" % out[-800:])
    ctx.expect("FS_IOC_SETFLAGS without append-only: Operation not permitted" in out,
               "D: %s" % out[-800:])
    ctx.expect("HA19-D" not in out.split("== D:")[-1].split("host's log:")[-1], "D's log: %s" % out[-400:])
    # B and C: the setuid bit is refused (EPERM), nothing on the host is
    # setuid; mutant root-setuid-open lets uid 1000 outside become root.
    ctx.expect_eq(out.count("fchmod 04755: Operation not permitted"), 2, "B and C: %s" % out[-800:])
    ctx.expect("euid 0" not in out, "a setuid file ran as root: %s" % out[-800:])
    out = review(ctx, "ha19-stdio.sh", mutant_binary("root-file-caps-kept"))
    ctx.expect("fsetxattr security.capability: ok" in out and
               "FS_IOC_SETFLAGS without append-only: ok" in out,
               "root-file-caps-kept mutant: %s" % out[-800:])
    out = review(ctx, "ha19-stdio.sh", mutant_binary("root-setuid-open"))
    ctx.expect("planted: uid 1000 euid 0" in out, "root-setuid-open mutant: %s" % out[-800:])


@test(timeout=240)
def root_agent_leaves_no_setid_program_on_the_host(ctx):
    # ha20-setid.sh (review h-attack20): a file setgid to disk or shadow on
    # the declared path (A) and on a file given for writing (B), and a
    # setuid-root program already in the declared path rewritten (C). Each
    # planted file is then run by uid 1000 outside the run: none may give
    # it another id. Mutant root-setuid-open reopens A. C is held twice
    # since review h-attack21: CAP_FSETID is dropped (mutant
    # root-file-caps-kept keeps it) and the program is a read-only mount of
    # its own (mutant root-setid-writable leaves it writable): each alone
    # holds, the two mutants together reopen it.
    require_root_and(ctx, "unshare", "gcc", "setpriv")
    out = review(ctx, "ha20-setid.sh", SV, timeout=200)
    ctx.expect("fchmod 02755: Operation not permitted" in out, "A: %s" % out[-800:])
    ctx.expect(not re.search(r"planted: uid 1000 euid 0|egid (?!1000)\d+", out),
               "a planted file gave uid 1000 another id: %s" % out[-800:])
    out = review(ctx, "ha20-setid.sh", mutant_binary("root-setuid-open"), timeout=200)
    ctx.expect("planted: uid 1000 euid 0" in out.split("== C:")[0],
               "root-setuid-open mutant: %s" % out[-800:])
    for mutant in ("root-file-caps-kept", "root-setid-writable"):
        out = review(ctx, "ha20-setid.sh", mutant_binary(mutant), timeout=200)
        c = out.split("== C:")[-1].split("== D:")[0]
        ctx.expect("planted: uid 1000 euid 0" not in c, "C under the %s mutant alone: %s" % (mutant, c))
    both = "root-file-caps-kept+root-setid-writable"
    out = review(ctx, "ha20-setid.sh", mutant_binary(both), timeout=200)
    c = out.split("== C:")[-1].split("== D:")[0]
    ctx.expect("planted: uid 1000 euid 0" in c, "%s mutant: %s" % (both, c))


@test(timeout=180)
def root_agent_cannot_rewrite_a_setuid_program_under_a_declared_path_through_a_mapping(ctx):
    # ha21-setid.sh B (review h-attack21): a setuid-root program already on
    # the declared path, opened O_RDWR and rewritten through a shared
    # mapping, would keep S_ISUID (only write(), truncate and fallocate
    # clear it); uid 1000 then runs it outside the run. The program is a
    # read-only mount of its own: the open gets EROFS, it stays as it was,
    # and uid 1000 gets no uid 0. Mutant root-setid-writable: it does.
    require_root_and(ctx, "unshare", "gcc", "setpriv")
    out = review(ctx, "ha21-setid.sh", SV)
    b = out.split("== B:")[-1]
    ctx.expect("agent: open: Read-only file system" in b, "B: the open for writing: %s" % b[-800:])
    ctx.expect("uid=0" not in b, "B: uid 1000 got uid 0: %s" % b[-800:])
    out = review(ctx, "ha21-setid.sh", mutant_binary("root-setid-writable"))
    b = out.split("== B:")[-1]
    ctx.expect("through a shared mapping: mode now 4755" in b and
               "host's root-only marker: uid=0" in b, "root-setid-writable mutant: %s" % b[-800:])


@test(timeout=400)
def root_agent_leaves_no_privileged_program_by_snapshot_acl_chmod_or_covered_mount(ctx):
    # ha24-setid.sh (review h-attack24): A a btrfs snapshot of the host's
    # file system into the declared path (refused: snapshot-open reopens
    # it), B a capable 0644 file made executable, C a setgid file without
    # group execute given it by an ACL, D a setuid program under a covered
    # mount point (all bound: setid-walk-narrow reopens B, C and D). uid
    # 1000 outside the run gets no privilege from any.
    require_root_and(ctx, "unshare", "gcc", "setpriv", "mkfs.btrfs", "setcap", "losetup")
    out = review(ctx, "ha24-setid.sh", SV, timeout=300)
    ctx.expect("BTRFS_IOC_SNAP_CREATE_V2: Operation not permitted" in out, "A: %s" % out[-1500:])
    ctx.expect("uid=0" not in out and "gid=42" not in out and "shadow-only" not in out,
               "a privileged program ran for uid 1000: %s" % out[-1500:])
    out = review(ctx, "ha24-setid.sh", mutant_binary("snapshot-open"), timeout=300)
    ctx.expect("uid=0" in out.split("== B:")[0], "snapshot-open mutant, A: %s" % out[-1500:])
    out = review(ctx, "ha24-setid.sh", mutant_binary("setid-walk-narrow"), timeout=300)
    for case, want in (("== B:", "uid=0"), ("== C:", "shadow-only"), ("== D:", "uid=0")):
        part = out.split(case)[-1].split("\n== ")[0]
        ctx.expect(want in part, "setid-walk-narrow mutant, %s %s" % (case, part[-600:]))


def setid_files(ctx):
    """Files under the declared path (ctx.tmp): {name: (mode, bound)}, each
    made from /bin/true; bound says whether a root agent must find it
    read-only. Returns {path: bound}."""
    d = os.path.join(ctx.tmp, "rootfs", "usr", "bin")
    os.makedirs(d)
    files = {"setuid": (0o4755, True), "setgid-exec": (0o2755, True), "setgid-lock": (0o2644, True),
             "plain": (0o755, False), "capable": (0o755, True)}
    out = {}
    for name, (mode, bound) in files.items():
        path = os.path.join(d, name)
        shutil.copyfile("/bin/true", path)
        os.chmod(path, mode)
        out[path] = bound
    os.link(os.path.join(d, "setuid"), os.path.join(ctx.tmp, "rootfs", "setuid-link"))
    out[os.path.join(ctx.tmp, "rootfs", "setuid-link")] = True
    os.symlink(os.path.join(d, "plain"), os.path.join(ctx.tmp, "rootfs", "plain-link"))
    subprocess.run(["setcap", "cap_net_raw+ep", os.path.join(d, "capable")], check=True)
    return out


@test()
def root_agent_finds_only_setid_and_capable_programs_read_only_under_a_declared_path(ctx):
    # What the walk binds: setuid, setgid with group execute, a hard link
    # of a setuid file elsewhere under the path, a file with capabilities;
    # not a setgid file without group execute (a locking mark), a plain
    # program, or what a symbolic link names. The seam setid_ro leaves
    # the binds writable: the read-back must refuse the run.
    require_root_and(ctx, "setcap")
    files = setid_files(ctx)
    args = ["open-wr:" + p for p in sorted(files)]
    run = ctx.sv("fs-probe", args)
    expect_outcome(ctx, run, 0, "pass")
    res = {l.get("dest"): l.get("errno") if l.get("result") else "ok" for l in run.log}
    for path, bound in sorted(files.items()):
        ctx.expect_eq(res.get(path), "EROFS" if bound else "ok", os.path.basename(path))
    run = ctx.sv("fs-probe", args, fault="setid_ro:EIO")
    expect_outcome(ctx, run, 3, "capability-error")
    named = re.search(r"rootfs/\S+ \(.*\) is still writable or allows device nodes", run.err)
    ctx.expect(named, "stderr names a program: %r" % run.err[-300:])
    ctx.expect_eq(run.log, [], "the agent ran")


@test()
def root_agent_cannot_open_the_hosts_hardware_knobs_in_proc(ctx):
    """A root agent's own /proc still reached the host's hardware: root owns
    /proc/bus/pci's config space files and /proc/irq's affinities, and their
    writes check no capability (review h-attack74 wrote a PCI device's
    vendor id under our supervisor, pass). They are bound read-only with
    the sysctls now (sv_rootfs_proc_knobs) and read back: opening one for
    writing is EROFS. Only opened, never written. Mutant
    proc-hardware-writable opens them."""
    require_root_and(ctx)
    probe = ("for f in /proc/irq/default_smp_affinity /proc/bus/pci/*/*; do "
             "[ -f \"$f\" ] || continue; (exec 3>>\"$f\") 2>/dev/null && echo \"OPENED $f\"; "
             "done; echo probed")
    for binary, opened in ((SV, False), (mutant_binary("proc-hardware-writable"), True)):
        run = ctx.sv("/bin/sh", ["-c", probe], binary=binary)
        what = os.path.basename(os.path.dirname(binary))
        expect_outcome(ctx, run, 0, "pass")
        ctx.expect("probed" in run.out, "%s: the probe ran: %r" % (what, run.out[-300:]))
        ctx.expect_eq("OPENED /proc/irq/" in run.out, opened,
                      "%s: /proc/irq opened for writing: %r" % (what, run.out[-300:]))


@test()
def root_agents_dev_keeps_a_misc_node_only_with_its_own_minor(ctx):
    """/dev/userfaultfd is a misc device (major 10), its minor dynamic: any
    minor passed, so a caller's /dev that holds another misc device under
    the name (review h-attack74: /dev/fuse, 10:229) handed it to the agent
    read-write. The minor is read from /proc/misc now: the caller's
    impostor is left out. The caller's /dev is made in a mount namespace of
    the test's own; mutant misc-minor-any keeps the impostor."""
    require_root_and(ctx, "unshare")
    if not os.path.exists("/dev/fuse") or not os.path.exists("/dev/userfaultfd"):
        raise Skip("needs /dev/fuse and /dev/userfaultfd to make the impostor")
    for binary, kept in ((SV, False), (mutant_binary("misc-minor-any"), True)):
        d, report_path, log_path = ctx.paths()
        script = ("mount --bind /dev/fuse /dev/userfaultfd && exec \"$0\" --report \"$1\" -- "
                  "/bin/sh -c 'ls -l /dev/userfaultfd 2>&1; echo listed'")
        argv = ["unshare", "-m", "--propagation", "private", "/bin/sh", "-c", script, binary,
                report_path]
        p = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
        what = os.path.basename(os.path.dirname(binary))
        ctx.expect_eq(p.returncode, 0, "%s: exit status (%s)" % (what, p.stderr[-300:]))
        ctx.expect("listed" in p.stdout, "%s: the agent ran: %r" % (what, p.stdout[-300:]))
        ctx.expect_eq("10, 229" in p.stdout, kept, "%s: the impostor in the agent's /dev: %r"
                      % (what, p.stdout[-300:]))


@test()
def root_agent_cannot_renice_its_callers_session_through_the_reaper(ctx):
    """The agent names its namespace's reaper /proc/1, and root owns
    /proc/1/autogroup: a write of 19 lowered the nice of the reaper's
    autogroup, the caller's session (review h-attack75: the CI runner ran
    at nice 19 after a run that passed). The reaper has a session of its
    own now. The caller here is a session of the test's own (setsid), read
    back after the run; mutant reaper-shares-session lowers it."""
    require_root_and(ctx, "setsid")
    if not os.path.exists("/proc/self/autogroup"):
        raise Skip("no CONFIG_SCHED_AUTOGROUP")
    for binary, lowered in ((SV, False), (mutant_binary("reaper-shares-session"), True)):
        d, report_path, log_path = ctx.paths()
        # Without CAP_SYS_ADMIN the kernel takes one such write a tenth of
        # a second (EAGAIN otherwise): asked again until it lands.
        script = ("\"$0\" --report \"$1\" -- /bin/sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do "
                  "echo 19 >/proc/1/autogroup 2>/dev/null && break; sleep 0.05; done; echo wrote'; "
                  "cat /proc/self/autogroup")
        p = subprocess.run(["setsid", "-w", "/bin/sh", "-c", script, binary, report_path],
                           capture_output=True, text=True, timeout=60, check=False)
        what = os.path.basename(os.path.dirname(binary))
        ctx.expect("wrote" in p.stdout, "%s: the agent ran: %r" % (what, p.stdout[-300:]))
        ctx.expect_eq("nice 19" in p.stdout, lowered,
                      "%s: the caller's autogroup after the run: %r" % (what, p.stdout[-300:]))
