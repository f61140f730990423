#!/usr/bin/env python3
"""The tools' one way to ask kernel-configs/kernels.sh about a kernel of the
matrix (its image, machine type, modules archive, config, what looking it up
will do), and the error a run that cannot start raises. The matrix, the boot
floor and the host replay import it; it imports none of them, so the floor
no longer reaches back into matrix.py. Python 3 standard library only."""

import os
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "initramfs", "host"))
import contract as C  # noqa: E402 - sha256_file, one copy

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KERNELS_SH = os.path.join(TOP, "kernel-configs", "kernels.sh")


class SetupError(Exception):
    """The run cannot start; the message says what to do."""


def run_tool(argv, what):
    """Run a helper; return stdout. Raises SetupError naming `what`."""
    try:
        res = subprocess.run(argv, capture_output=True, text=True, check=False)
    except OSError as e:
        raise SetupError(f"{what}: cannot run {argv[0]}: {e}") from None
    if res.returncode != 0:
        raise SetupError(f"{what}: {shlex.join(argv)} exited {res.returncode}: "
                         f"{res.stderr.strip()[-2000:]}")
    return res.stdout


def ask(verb, name):
    """`kernels.sh VERB NAME`'s answer, stripped. SetupError naming the kernel."""
    return run_tool([KERNELS_SH, verb, name], f"kernel {name}").strip()


def last_line(verb, name):
    """The last line of `kernels.sh VERB NAME` (the path; fetching or building
    prints progress before it)."""
    return ask(verb, name).splitlines()[-1]


def kernel_info(name):
    """Path, sha256, version and config of one kernel (fetched or built by
    kernel-configs/kernels.sh when missing)."""
    path = last_line("path", name)
    info = {"name": name, "path": path, "sha256": C.sha256_file(path),
            "machine": ask("machine", name),
            "description": ask("describe", name),
            "modules": last_line("modules", name),
            "version": None, "release": None, "config": None}
    meta = os.path.join(os.path.dirname(path), "meta")
    if os.path.exists(meta):
        with open(meta, encoding="utf-8") as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                if k in ("version", "release"):
                    info[k] = v
    config = os.path.join(os.path.dirname(path), "config")
    if os.path.exists(config):
        info["config"] = config
    return info


def kernel_plan(name):
    """What looking the kernel up will do: "cached", "fetch" or "build MINUTES"."""
    return ask("plan", name)


def kernel_config_path(name):
    """The path of the kernel's .config (`kernels.sh config NAME`)."""
    return last_line("config", name)
