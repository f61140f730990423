"""Builds egress-sink (initramfs/guest/sink.c) natively for the sink tests,
with sanitizers, and once more with a guest mutant's define (the old
behaviour the test must tell apart)."""
import os
import shutil
import subprocess
import unittest

TOP = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def build_sinks(tmp, mutant_define):
    """{"sink": path, "mutant": path} under tmp; raises SkipTest without a
    host C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise unittest.SkipTest("no host C compiler")
    sinks = {}
    for name, flags in (("sink", []), ("mutant", ["-D" + mutant_define])):
        sinks[name] = os.path.join(tmp, name)
        subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE",
                        "-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
                       + flags + ["-o", sinks[name], os.path.join(TOP, "initramfs", "guest", "sink.c")],
                       check=True)
    return sinks
