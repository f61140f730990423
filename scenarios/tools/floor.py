#!/usr/bin/env python3
"""The boot floor: how long one VM takes when its init only powers off.

The matrix compares its wall time with cells x floor / parallel VMs. The
floor guest is the kernel under test with a two-file initramfs (static
busybox and an /init that prints a marker and ends the guest), booted on a
cell's own QEMU line (initramfs/host/launcher.py: the machine type kernels.sh
names for the kernel, the same memory, accelerator, devices and kernel
arguments, no network). The same guest is the accelerator canary.

    floor.py KERNEL-NAME...      measure and print one line per kernel
                                 (ACCEL=auto|kvm|tcg, QEMU= as for cells)

Python 3 standard library only.
"""

import concurrent.futures
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "initramfs", "host"))
import launcher as L  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels as K  # noqa: E402 - kernel_info, the matrix's own lookup

# Seconds one floor boot may take: the canary's bound for the accelerator,
# doubled (the floor boots JOBS guests at once on a shared machine).
FLOOR_TIMEOUT_S = {accel: 2 * s for accel, s in L.CANARY_BOUND_S.items()}
# Boots per kernel; the floor is the fastest. The machine is shared, so one
# boot can be slowed by anything else running: the floor is the best case.
FLOOR_SAMPLES = 2


class FloorError(Exception):
    pass


def boot_once(kinfo, accel, workdir, tag):
    """Seconds from QEMU's start to its exit; FloorError unless the marker
    reached the console and QEMU exited 0."""
    took, why = L.boot_floor(kinfo["path"], kinfo.get("machine") or "q35", accel, workdir,
                             FLOOR_TIMEOUT_S[accel], tag=tag)
    if why:
        raise FloorError(f"floor guest of {kinfo['name']} under {accel}: {why}")
    return took


def measure(kinfos, workdir, jobs, accel, samples=None):
    """({kernel name: floor seconds}, {kernel name: [every sample]}):
    FLOOR_SAMPLES boots per kernel under `accel`, `jobs` at a time (the
    same parallelism as the cells); the floor is the fastest. Raises
    FloorError."""
    samples = samples or FLOOR_SAMPLES
    os.makedirs(workdir, exist_ok=True)
    with open(os.path.join(workdir, "qemu-argv.txt"), "w", encoding="utf-8") as f:
        for k in kinfos:
            argv = L.floor_argv(k["path"], k.get("machine") or "q35", accel,
                                os.path.join(workdir, "floor.cpio"),
                                os.path.join(workdir, f"{k['name']}.N.console.log"))
            f.write(f"{k['name']}: {shlex.join(argv)}\n")
    L.build_floor_initrd(os.path.join(workdir, "floor.cpio"))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futs = [(k["name"], pool.submit(boot_once, k, accel, workdir, f"{k['name']}.{i}"))
                for i in range(samples) for k in kinfos]
        got = {}
        for name, fut in futs:
            got.setdefault(name, []).append(round(fut.result(), 3))
    return {name: min(v) for name, v in got.items()}, got


def main(argv):
    if not argv or any(not re.match(r"^[A-Za-z0-9._-]+$", a) for a in argv):
        print("usage: floor.py KERNEL-NAME...", file=sys.stderr)
        return 2
    work = "/tmp/egress-floor"
    try:
        kinfos = [K.kernel_info(k) for k in argv]
        choice = L.choose_accelerator(kinfos[0]["path"], kinfos[0]["machine"] or "q35",
                                      os.path.join(work, "canary"))
        print(L.accel_line(choice))
        res, every = measure(kinfos, work, os.cpu_count() or 1, choice["accelerator"])
    except (FloorError, L.LaunchError, K.SetupError) as e:
        print(f"floor.py: error: {e}", file=sys.stderr)
        return 1
    for k, s in res.items():
        print(f"{k} {s:.2f}s (samples: {' '.join(f'{x:.2f}' for x in every[k])})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
