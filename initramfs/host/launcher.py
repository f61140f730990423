#!/usr/bin/env python3
"""The appliance's one QEMU launcher: the command line of every guest (cells,
the boot floor, the accelerator canary), the accelerator choice proven by a
boot, and timeouts that follow the accelerator. docs/guest.md describes it.

    launcher.py accel --kernel VMLINUZ [--machine M] [--mode auto|kvm|tcg]
        boots the canary and prints the choice as JSON; exit 2 when no
        accelerator boots (the message names what each canary saw)

QEMU is $QEMU (default qemu-system-x86_64) everywhere. The accelerator is
$ACCEL (auto, the default; kvm; tcg). Python 3 standard library only.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mkcpio  # noqa: E402

DEFAULT_QEMU = "qemu-system-x86_64"
# The accelerators a guest can run under, and what $ACCEL may ask for.
ACCELERATORS = ("kvm", "tcg")
ACCEL_MODES = ("auto",) + ACCELERATORS
# The QEMU machine types the kernels boot on (kernel-configs/kernels.sh
# machine NAME names one; serial_args knows each one's ports).
MACHINES = ("q35", "pc", "microvm")
MEMORY_MIB = 384
BUSYBOX = "/bin/busybox"

# Every guest's kernel arguments. panic=-1 with -no-reboot turns a panic into
# a QEMU exit; oops=panic makes every oops one. quiet: the guest's dmesg
# travels in the result anyway, and a console at full log level slows a TCG
# boot. syscall.x32=y: Debian builds x32 disabled by default
# (X86_X32_DISABLED); enabling it where the kernel has it lets x32 cells run
# (kernels without the option ignore it). no_timer_check: on a loaded host a
# TCG guest can fail the IO-APIC timer check and panic ("IO-APIC + timer
# doesn't work!", seen on 6.12 here).
KERNEL_ARGS = ("console=ttyS0", "panic=-1", "oops=panic", "quiet", "no_timer_check",
               "syscall.x32=y")

# The canary must reach init and end within this many seconds. KVM boots a
# Debian kernel in well under 2 s; a KVM that spins in the kernel's entry
# (seen on this project's CI machine) is given up on after 15 s. TCG's bound
# is the floor's: 2-6 s per boot here, 60 s of margin for a loaded host.
CANARY_BOUND_S = {"kvm": 15, "tcg": 60}

# Scenario timeouts are written for TCG on a loaded 2-core machine. Under KVM
# the guest runs about 10x faster, but agents' own waits (sink grace, connect
# timeouts) are wall-clock: half the TCG deadline, never below the floor
# below, finds a hung KVM guest sooner without cutting a slow agent short.
TIMEOUT_SCALE = {"tcg": 1.0, "kvm": 0.5}
MIN_TIMEOUT_S = 20

FLOOR_MARKER = "EGRESS-FLOOR-POWEROFF"


class LaunchError(Exception):
    """No accelerator can be used: the message names what each canary saw."""


def qemu_binary():
    return os.environ.get("QEMU") or DEFAULT_QEMU


def accel_mode(value=None):
    """The requested mode: `value`, else $ACCEL, else auto. LaunchError for
    anything else, naming the variable."""
    mode = value if value is not None else (os.environ.get("ACCEL") or "auto")
    if mode not in ACCEL_MODES:
        raise LaunchError(f"ACCEL={mode!r}: want one of {', '.join(ACCEL_MODES)}")
    return mode


def accel_args(accel):
    """-accel (and -cpu) for a chosen accelerator."""
    if accel == "kvm":
        return ["-accel", "kvm", "-cpu", "host"]
    if accel == "tcg":
        return ["-accel", "tcg"]
    raise ValueError(f"unknown accelerator {accel!r}")


def qemu_path(path):
    """QEMU's option parser splits on commas; a comma in a path is doubled."""
    return path.replace(",", ",,")


def serial_args(machine, console, result):
    """ttyS0 to the console file, ttyS1 (COM2) to the result file."""
    if machine == "microvm":
        # microvm has one built-in 8250; the result port is an ISA serial at COM2.
        return ["-serial", f"file:{qemu_path(console)}",
                "-chardev", f"file,id=result,path={qemu_path(result)}",
                "-device", "isa-serial,chardev=result,iobase=0x2f8,irq=3,index=1"]
    # -nodefaults: no VGA, no default NIC or ROMs.
    return ["-nodefaults",
            "-chardev", f"file,id=console,path={qemu_path(console)}", "-serial", "chardev:console",
            "-chardev", f"file,id=result,path={qemu_path(result)}", "-serial", "chardev:result"]


def kernel_cmdline(extra=""):
    """The guest's kernel command line: KERNEL_ARGS, then `extra`."""
    return " ".join(KERNEL_ARGS + ((extra,) if extra else ()))


def qemu_argv(kernel, initrd, console, result, machine="q35", accel="tcg", append="",
              extra=()):
    """The whole QEMU command line of one guest: one CPU, MEMORY_MIB, no
    network (-nic none), -no-reboot, no display or monitor, console and
    result ports in files, the kernel and initramfs given."""
    return ([qemu_binary(), "-machine", machine] + accel_args(accel) +
            ["-m", str(MEMORY_MIB), "-smp", "1", "-nic", "none", "-no-reboot",
             "-display", "none", "-monitor", "none"] +
            serial_args(machine, console, result) +
            ["-kernel", kernel, "-initrd", initrd, "-append", kernel_cmdline(append)] +
            list(extra))


def scaled_timeout(accel, declared_s):
    """A cell's deadline under `accel`, from its TCG-based declared one (a
    deadline already at or below MIN_TIMEOUT_S is kept)."""
    if declared_s <= MIN_TIMEOUT_S:
        return int(declared_s)
    return max(MIN_TIMEOUT_S, int(round(declared_s * TIMEOUT_SCALE[accel])))


def guest_deadline(timeout_s):
    """egress.deadline: the guest kills a supervisor still running then and
    still reports (outcome timeout, with logs); the margin covers boot and
    the result's transfer on a loaded host."""
    return timeout_s - 20 if timeout_s > 40 else timeout_s // 2


def qemu_version():
    """The first line of `$QEMU --version`; LaunchError when it cannot run."""
    try:
        res = subprocess.run([qemu_binary(), "--version"], capture_output=True, text=True,
                             check=False, stdin=subprocess.DEVNULL, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise LaunchError(f"{qemu_binary()}: cannot run it ({e}); apt-get install "
                          f"qemu-system-x86, or set QEMU=") from None
    if res.returncode != 0:
        raise LaunchError(f"{qemu_binary()} --version exited {res.returncode}")
    return (res.stdout.splitlines() or ["unknown"])[0]


def exit_text(rc):
    """QEMU's end in words: 'exited N' or 'died of SIGNAME'."""
    if rc is not None and rc < 0:
        try:
            return f"died of {signal.Signals(-rc).name}"
        except ValueError:
            return f"died of signal {-rc}"
    return f"exited {rc}"


def shell_status(rc):
    """An exit status as a shell reports it (128 + signal for a signal)."""
    return 128 - rc if rc is not None and rc < 0 else rc


def stop(p):
    """Ends a guest's QEMU that ran out of time: SIGTERM, then SIGKILL after
    5 s; reaped either way."""
    p.terminate()
    try:
        p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def run_guest(argv, timeout_s):
    """Runs QEMU until it exits or timeout_s passes (then SIGTERM, SIGKILL
    5 s later). Returns (exit status, negative for a signal as subprocess
    gives it, or None when it was killed at the deadline; seconds; stderr)."""
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=err, stderr=err)
        try:
            rc = p.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            stop(p)
            rc = None
        took = time.monotonic() - t0
        err.seek(0)
        return rc, took, err.read().decode("utf-8", "replace")


# ---------------------------------------------------------------- the floor guest

def build_floor_initrd(path):
    """The floor (and canary) initramfs: static busybox and an /init that
    prints FLOOR_MARKER and ends the guest as a cell's does (ACPI power-off,
    or reboot, which -no-reboot turns into QEMU exiting, where the kernel
    line says floor_end=reboot)."""
    if not os.path.isfile(BUSYBOX):
        raise LaunchError(f"{BUSYBOX} missing (apt-get install busybox-static)")
    init = ("#!/bin/busybox sh\n"
            "/bin/busybox mount -t proc proc /proc\n"
            f"/bin/busybox echo {FLOOR_MARKER}\n"
            "if /bin/busybox grep -q floor_end=reboot /proc/cmdline; then\n"
            "  /bin/busybox reboot -f\nelse\n  /bin/busybox poweroff -f\nfi\n")
    with tempfile.TemporaryDirectory() as root:
        for d in ("bin", "dev", "proc"):
            os.mkdir(os.path.join(root, d), 0o755)
        shutil.copyfile(BUSYBOX, os.path.join(root, "bin", "busybox"))
        os.chmod(os.path.join(root, "bin", "busybox"), 0o755)
        with open(os.path.join(root, "init"), "w", encoding="utf-8") as f:
            f.write(init)
        os.chmod(os.path.join(root, "init"), 0o755)
        for d in ("bin", "dev", "proc"):
            os.chmod(os.path.join(root, d), 0o755)
        data = mkcpio.build(root, 0, ["dev/console:c:5:1:600"])
    with open(path, "wb") as f:
        f.write(data)


def floor_argv(kernel, machine, accel, initrd, console):
    """The floor guest's command line: a cell's, with the floor initramfs."""
    end = "poweroff" if machine == "microvm" else "reboot"
    return qemu_argv(kernel, initrd, console, console + ".result", machine=machine,
                     accel=accel, append=f"floor_end={end}")


def boot_floor(kernel, machine, accel, workdir, timeout_s, tag="floor"):
    """Boots the floor guest once. Returns (seconds, None) when the marker
    reached the console and QEMU exited 0, else (seconds, what went wrong)."""
    os.makedirs(workdir, exist_ok=True)
    initrd = os.path.join(workdir, "floor.cpio")
    if not os.path.exists(initrd):
        build_floor_initrd(initrd)
    console = os.path.join(workdir, f"{tag}.console.log")
    for p in (console, console + ".result"):
        if os.path.exists(p):
            os.unlink(p)
    argv = floor_argv(kernel, machine, accel, initrd, console)
    rc, took, err = run_guest(argv, timeout_s)
    try:
        with open(console, encoding="utf-8", errors="replace") as f:
            out = f.read()
    except OSError:
        out = ""
    prog = os.path.basename(argv[0]) + ": "
    last = "; ".join(ln.strip().replace(prog, "") for ln in err.strip().splitlines()[-3:])[:300]
    if rc is None:
        return took, (f"no init within {timeout_s} s (killed; console "
                      f"{'silent' if not out.strip() else 'has output but no marker'})")
    if FLOOR_MARKER not in out:
        return took, f"qemu {exit_text(rc)} before init" + (f": {last}" if last else "")
    if rc != 0:
        return took, f"reached init but qemu {exit_text(rc)}" + (f": {last}" if last else "")
    return took, None


def choose_accelerator(kernel, machine, workdir, mode=None):
    """Proves an accelerator by booting the canary (the floor guest) with
    it. Returns {"accelerator", "reason", "mode", "canary": [attempts]}.

    auto: KVM when its canary boots within CANARY_BOUND_S["kvm"], else TCG
    when its canary boots; kvm: KVM or LaunchError; tcg: TCG without a
    canary (the user's choice; every cell proves its own boot). LaunchError
    names every canary's failure."""
    mode = accel_mode(mode)
    if mode == "tcg":
        return {"accelerator": "tcg", "mode": mode, "canary": [],
                "reason": "forced by ACCEL=tcg"}
    attempts = []
    for accel in (("kvm", "tcg") if mode == "auto" else ("kvm",)):
        took, why = boot_floor(kernel, machine, accel, workdir, CANARY_BOUND_S[accel],
                               tag=f"canary-{accel}")
        attempts.append({"accelerator": accel, "ok": why is None, "seconds": round(took, 2),
                         "detail": why or "booted to init and powered off"})
        if why is None:
            if accel == "kvm":
                reason = f"kvm canary booted in {took:.1f} s"
            else:
                reason = f"kvm unusable: {attempts[0]['detail']}"
            return {"accelerator": accel, "mode": mode, "canary": attempts, "reason": reason}
    seen = "; ".join(f"{a['accelerator']}: {a['detail']}" for a in attempts)
    if mode == "kvm":
        raise LaunchError(f"ACCEL=kvm but KVM cannot boot a guest here ({seen}); "
                          f"use ACCEL=auto or ACCEL=tcg")
    raise LaunchError(f"no accelerator boots a guest with {qemu_binary()} ({seen})")


def accel_line(choice):
    """The one line a run prints at its start."""
    return f"accelerator: {choice['accelerator']} ({choice['reason']})"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("accel", help="prove an accelerator by booting the canary")
    p.add_argument("--kernel", required=True)
    p.add_argument("--machine", default="q35", choices=MACHINES)
    p.add_argument("--mode", default=None, choices=ACCEL_MODES)
    p.add_argument("--workdir", default=None)
    a = ap.parse_args(argv)
    work = a.workdir or tempfile.mkdtemp(prefix="egress-canary-")
    try:
        choice = choose_accelerator(a.kernel, a.machine, work, a.mode)
    except LaunchError as e:
        print(f"launcher: {e}", file=sys.stderr)
        return 2
    finally:
        if not a.workdir:
            shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(choice))
    print(accel_line(choice), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

