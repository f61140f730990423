#!/usr/bin/env python3
"""The boot floor: how long one VM takes when its init only powers off.

The matrix compares its wall time with cells x floor / parallel VMs (target
<= 1.3x). The floor guest is the kernel under test with a two-file initramfs
(static busybox and an /init that prints a marker and ends the guest), booted
on run-vm.sh cell's QEMU line (floor_qemu_argv): the machine type kernels.sh
names for the kernel, the same memory, accelerator, devices and kernel
arguments as a cell, no network.

    floor.py KERNEL-NAME...      measure and print one line per kernel

Python 3 standard library only.
"""

import concurrent.futures
import os
import re
import shlex
import stat
import subprocess
import sys
import time

MARKER = "EGRESS-FLOOR-POWEROFF"
BUSYBOX = "/bin/busybox"
FLOOR_TIMEOUT_S = 120
# Boots per kernel; the floor is the fastest. The machine is shared, so one
# boot can be slowed by anything else running: the floor is the best case.
FLOOR_SAMPLES = 2


class FloorError(Exception):
    pass


def _cpio_entry(name, mode, data=b"", rdev=(0, 0), ino=1):
    """One newc cpio entry (owner 0, mtime 0)."""
    name_b = name.encode() + b"\0"
    hdr = "070701" + "".join(f"{v:08x}" for v in (
        ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(name_b), 0))
    out = hdr.encode() + name_b
    out += b"\0" * (-len(out) % 4)
    out += data
    out += b"\0" * (-len(out) % 4)
    return out


def build_floor_initrd(path):
    """Write the floor initramfs: /init, /bin/busybox, /dev/console."""
    if not os.path.isfile(BUSYBOX):
        raise FloorError(f"{BUSYBOX} missing (apt-get install busybox-static)")
    with open(BUSYBOX, "rb") as f:
        busybox = f.read()
    # The guest ends as a cell's guest does: ACPI power-off where the machine
    # has it (microvm with Debian's kernels), else reboot, which -no-reboot
    # turns into QEMU exiting (kernels without ACPI on q35).
    init = ("#!/bin/busybox sh\n"
            "/bin/busybox mount -t proc proc /proc\n"
            f"/bin/busybox echo {MARKER}\n"
            "if /bin/busybox grep -q floor_end=reboot /proc/cmdline; then\n"
            "  /bin/busybox reboot -f\nelse\n  /bin/busybox poweroff -f\nfi\n").encode()
    blob = b"".join([
        _cpio_entry("bin", stat.S_IFDIR | 0o755, ino=1),
        _cpio_entry("bin/busybox", stat.S_IFREG | 0o755, busybox, ino=2),
        _cpio_entry("dev", stat.S_IFDIR | 0o755, ino=3),
        _cpio_entry("dev/console", stat.S_IFCHR | 0o600, rdev=(5, 1), ino=4),
        _cpio_entry("init", stat.S_IFREG | 0o755, init, ino=5),
        _cpio_entry("proc", stat.S_IFDIR | 0o755, ino=6),
        _cpio_entry("TRAILER!!!", 0, ino=0),
    ])
    with open(path, "wb") as f:
        f.write(blob)


def floor_qemu_argv(kinfo, initrd, console):
    """The floor guest's QEMU command line: run-vm.sh cell's line (machine
    from kernels.sh, 256 MiB, one CPU, TCG unless /dev/kvm opens, -nic none,
    -no-reboot, console and result ports in files, the same kernel
    arguments) with the floor initramfs. Keep in step with run-vm.sh."""
    machine = kinfo.get("machine") or "q35"
    end = "poweroff" if machine == "microvm" else "reboot"
    append = f"console=ttyS0 panic=-1 oops=panic quiet no_timer_check syscall.x32=y floor_end={end}"
    accel = ["-accel", "tcg"]
    if os.environ.get("ACCEL", "auto") != "tcg":
        try:
            with open("/dev/kvm", "rb"):
                accel = ["-accel", "kvm", "-cpu", "host"]
        except OSError:
            pass
    q = lambda p: p.replace(",", ",,")  # noqa: E731 - QEMU's comma escape
    result = console + ".result"
    if machine == "microvm":
        serial = ["-serial", f"file:{q(console)}",
                  "-chardev", f"file,id=result,path={q(result)}",
                  "-device", "isa-serial,chardev=result,iobase=0x2f8,irq=3,index=1"]
    else:
        serial = ["-nodefaults",
                  "-chardev", f"file,id=console,path={q(console)}", "-serial", "chardev:console",
                  "-chardev", f"file,id=result,path={q(result)}", "-serial", "chardev:result"]
    return (["qemu-system-x86_64", "-machine", machine] + accel +
            ["-m", "256", "-smp", "1", "-nic", "none", "-no-reboot", "-display", "none",
             "-monitor", "none"] + serial +
            ["-kernel", kinfo["path"], "-initrd", initrd, "-append", append])


def boot_once(argv, console):
    """Seconds from QEMU's start to its exit; FloorError unless the marker
    reached the console and QEMU exited 0."""
    t0 = time.monotonic()
    try:
        res = subprocess.run(argv, capture_output=True, timeout=FLOOR_TIMEOUT_S, check=False,
                             stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise FloorError(f"floor guest did not end within {FLOOR_TIMEOUT_S}s: "
                         f"{shlex.join(argv)}") from None
    took = time.monotonic() - t0
    try:
        with open(console, encoding="utf-8", errors="replace") as f:
            out = f.read()
    except OSError:
        out = ""
    if MARKER not in out:
        raise FloorError(f"floor guest never reached init (exit {res.returncode}): "
                         f"{shlex.join(argv)}: {res.stderr.decode(errors='replace')[-500:]}")
    if res.returncode != 0:
        raise FloorError(f"floor guest's QEMU exited {res.returncode}: {shlex.join(argv)}")
    return took


def measure(top, kinfos, workdir, jobs, samples=None):
    """({kernel name: floor seconds}, {kernel name: [every sample]}):
    FLOOR_SAMPLES boots per kernel, `jobs` at a time (the same parallelism
    as the cells); the floor is the fastest. Raises FloorError."""
    samples = samples or FLOOR_SAMPLES
    os.makedirs(workdir, exist_ok=True)
    initrd = os.path.join(workdir, "floor.cpio")
    build_floor_initrd(initrd)
    consoles = {k["name"]: os.path.join(workdir, f"{k['name']}.console.log") for k in kinfos}
    lines = {k["name"]: floor_qemu_argv(k, initrd, consoles[k["name"]]) for k in kinfos}
    with open(os.path.join(workdir, "qemu-argv.txt"), "w", encoding="utf-8") as f:
        for name, argv in lines.items():
            f.write(f"{name}: {shlex.join(argv)}\n")
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futs = [(name, pool.submit(boot_once, argv, consoles[name]))
                for _ in range(samples) for name, argv in lines.items()]
        got = {}
        for name, fut in futs:
            got.setdefault(name, []).append(round(fut.result(), 3))
    return {name: min(v) for name, v in got.items()}, got


def main(argv):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import matrix  # noqa: PLC0415 - reuse kernel_info, avoids a cycle at import
    if not argv or any(not re.match(r"^[A-Za-z0-9._-]+$", a) for a in argv):
        print("usage: floor.py KERNEL-NAME...", file=sys.stderr)
        return 2
    try:
        kinfos = [matrix.kernel_info(k) for k in argv]
        res, every = measure(matrix.TOP, kinfos, "/tmp/egress-floor", os.cpu_count() or 1)
    except (FloorError, matrix.SetupError) as e:
        print(f"floor.py: error: {e}", file=sys.stderr)
        return 1
    for k, s in res.items():
        print(f"{k} {s:.2f}s (samples: {' '.join(f'{x:.2f}' for x in every[k])})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
