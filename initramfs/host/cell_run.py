#!/usr/bin/env python3
"""`run-vm.sh cell`: boots one cell under QEMU and decides its outcome, in
one process (docs/guest.md).

    cell_run.py --kernel VMLINUZ --initrd CPIO --cell-file FILE --out DIR
                [--timeout S] [--machine q35|pc|microvm] [--append ARGS]
                [--qemu-extra ARG]... [--accel kvm|tcg --accel-reason TEXT]
                [--supervisor FILE|DIR]

Without --accel the accelerator is proven here by the canary ($ACCEL:
auto, kvm or tcg; launcher.py); a matrix run proves it once and passes it
on. --timeout is the TCG-based deadline (the cell file's by default); it is
scaled to the accelerator. Writes DIR/console.log, DIR/result.raw,
DIR/qemu.stderr, DIR/cell.json, DIR/report.json (when the supervisor wrote
one) and DIR/guest/*. Exit status 0 whenever the cell ran, whatever its
outcome (read DIR/cell.json); 2 for a bad invocation or no usable
accelerator.
"""

import argparse
import os
import resource
import shlex
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bundle  # noqa: E402
import cell_result  # noqa: E402
import cellfile  # noqa: E402
import launcher  # noqa: E402

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUN_VM = os.path.join(TOP, "run-vm.sh")
OUTPUTS = ("console.log", "result.raw", "report.json", "cell.json", "qemu.stderr")


class BadInvocation(Exception):
    pass


class Parser(argparse.ArgumentParser):
    """argparse that raises BadInvocation naming the command (`what`: cell
    or batch) instead of exiting."""

    def __init__(self, *args, what="cell", **kw):
        self.what = what
        super().__init__(*args, **kw)

    def error(self, message):
        raise BadInvocation(f"{self.what}: {message}")


def add_guest_options(ap):
    """The options `run-vm.sh cell` and `run-vm.sh batch` share: the guest's
    machine, kernel arguments to add, an accelerator the caller proved, the
    supervisor."""
    ap.add_argument("--machine", default="q35", choices=launcher.MACHINES)
    ap.add_argument("--append", default="")
    ap.add_argument("--accel", choices=launcher.ACCELERATORS, default=None)
    ap.add_argument("--accel-reason", default=None)
    ap.add_argument("--supervisor", default=os.path.join(TOP, "build", "egress-supervisor"))


def check_guest_options(a, what, files):
    """The shared options' checks, then each of `files` readable; a.supervisor
    made absolute. BadInvocation naming `what` and the option or file."""
    if a.accel_reason is not None and a.accel is None:
        raise BadInvocation(f"{what}: --accel-reason goes with --accel")
    try:
        bundle.load(a.supervisor)
    except bundle.BundleError as e:
        raise BadInvocation(f"{what}: --supervisor: {e}") from None
    a.supervisor = os.path.abspath(a.supervisor)
    for f in files:
        if not (os.path.isfile(f) and os.access(f, os.R_OK)):
            raise BadInvocation(f"{what}: {f}: not a readable file")


def parse(argv):
    ap = Parser(prog="run-vm.sh cell", add_help=True)
    for opt in ("--kernel", "--initrd", "--cell-file", "--out"):
        ap.add_argument(opt, required=True)
    ap.add_argument("--timeout", type=int, default=None)
    ap.add_argument("--qemu-extra", action="append", default=[])
    add_guest_options(ap)
    a = ap.parse_args(argv)
    check_guest_options(a, "cell", (a.kernel, a.initrd, a.cell_file))
    if a.timeout is not None and a.timeout < 1:
        raise BadInvocation(f"cell: --timeout {a.timeout}: want whole seconds > 0")
    return a


def rerun_line(a):
    """The command that boots this cell again (the accelerator is proven
    afresh there: a rerun on another machine must not inherit this one's)."""
    parts = [RUN_VM, "cell", "--kernel", a.kernel, "--initrd", a.initrd, "--cell-file",
             a.cell_file, "--out", a.out, "--timeout", str(a.declared), "--machine", a.machine,
             "--supervisor", a.supervisor]
    if a.append:
        parts += ["--append", a.append]
    for x in a.qemu_extra:
        parts += ["--qemu-extra", x]
    return shlex.join(parts)


def run(a):
    try:
        cell, declared = cellfile.cell_info(a.cell_file)
    except ValueError as e:
        raise BadInvocation(f"cell: {a.cell_file}: not a usable cell file: {e}") from None
    os.makedirs(a.out, exist_ok=True)
    a.out = os.path.abspath(a.out)
    a.kernel, a.initrd, a.cell_file = (os.path.realpath(p) for p in
                                       (a.kernel, a.initrd, a.cell_file))
    for name in OUTPUTS:
        path = os.path.join(a.out, name)
        if os.path.exists(path):
            os.unlink(path)
    shutil.rmtree(os.path.join(a.out, "guest"), ignore_errors=True)

    version = launcher.qemu_version()
    if a.accel:
        accel, reason = a.accel, a.accel_reason or "given by the caller"
    else:
        choice = launcher.choose_accelerator(a.kernel, a.machine,
                                             os.path.join(a.out, "canary"))
        accel, reason = choice["accelerator"], choice["reason"]
        print(launcher.accel_line(choice), file=sys.stderr)
    a.declared = a.timeout or declared
    timeout = launcher.scaled_timeout(accel, a.declared)
    nonce = os.urandom(16).hex()
    append = (f"egress.cell={cell} egress.nonce={nonce} "
              f"egress.deadline={launcher.guest_deadline(timeout)}"
              + (f" {a.append}" if a.append else ""))
    console = os.path.join(a.out, "console.log")
    argv = launcher.qemu_argv(a.kernel, a.initrd, console, os.path.join(a.out, "result.raw"),
                              machine=a.machine, accel=accel, append=append,
                              extra=a.qemu_extra)
    rc, took, err = launcher.run_guest(argv, timeout)
    with open(os.path.join(a.out, "qemu.stderr"), "w", encoding="utf-8") as f:
        f.write(err)
    for name in ("console.log", "result.raw"):
        open(os.path.join(a.out, name), "ab").close()
    ev = argparse.Namespace(
        out=a.out, cell_file=a.cell_file, nonce=nonce, kernel=a.kernel, initrd=a.initrd,
        qemu_version=version, accel=accel, accel_reason=reason,
        qemu_cmdline=shlex.join(argv), rerun=rerun_line(a),
        qemu_rc=124 if rc is None else launcher.shell_status(rc), timed_out=int(rc is None), timeout=timeout,
        run_s=took, supervisor=a.supervisor)
    cell_result.cmd_evaluate(ev)
    # This process's own CPU (QEMU, a child, is not in it): the host's work.
    ru = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.path.join(a.out, "host-cpu"), "w", encoding="utf-8") as f:
        f.write(f"{ru.ru_utime + ru.ru_stime:.3f}\n")


def main(argv=None):
    try:
        run(parse(sys.argv[1:] if argv is None else argv))
    except BadInvocation as e:
        print(f"run-vm.sh: {e}", file=sys.stderr)
        return 2
    except launcher.LaunchError as e:
        print(f"run-vm.sh: cell: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
