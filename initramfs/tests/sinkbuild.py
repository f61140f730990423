"""What the sink tests share: a check that this host can run them (root,
tools, a namespace probe) and egress-sink (initramfs/guest/sink.c) built
natively, with sanitizers, and once more with a guest mutant's define (the
old behaviour the test must tell apart)."""
import os
import shutil
import subprocess
import tempfile
import time
import unittest

TOP = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def require_host(why_root, tools, probe, why_probe):
    """Raises SkipTest unless root, every tool is on PATH and the probe
    command succeeds (its output joins why_probe)."""
    if os.geteuid() != 0:
        raise unittest.SkipTest("not root: " + why_root)
    for tool in tools:
        if not shutil.which(tool):
            raise unittest.SkipTest(f"no {tool} on this host")
    r = subprocess.run(probe, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        raise unittest.SkipTest(why_probe + ": " + r.stdout.decode(errors="replace").strip())


def build_sinks(prefix, mutant_define):
    """(tmp, {"sink": path, "mutant": path}) in a new directory tmp named
    with prefix (the caller removes it); raises SkipTest without a host C
    compiler."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise unittest.SkipTest("no host C compiler")
    tmp = tempfile.mkdtemp(prefix=prefix)
    sinks = {}
    for name, flags in (("sink", []), ("mutant", ["-D" + mutant_define])):
        sinks[name] = os.path.join(tmp, name)
        subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE",
                        "-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
                       + flags + ["-o", sinks[name], os.path.join(TOP, "initramfs", "guest", "sink.c")],
                       check=True)
    return tmp, sinks


def start_sink(sink, d, endpoints, err_path=None):
    """Starts the sink with its log and ready file in d and its stderr in
    err_path (default d/sink.err); waits up to 3 s for it to be ready.
    Returns (Popen, log path, stderr path); raises RuntimeError naming its
    stderr when it never gets ready."""
    log, ready = os.path.join(d, "sink.log"), os.path.join(d, "sink.ready")
    err_path = err_path or os.path.join(d, "sink.err")
    with open(err_path, "wb") as err:
        p = subprocess.Popen([sink, "--log", log, "--ready", ready] + endpoints, stderr=err)
    for _ in range(300):
        if os.path.exists(ready) or p.poll() is not None:
            break
        time.sleep(0.01)
    if not os.path.exists(ready):
        with open(err_path, "rb") as f:
            raise RuntimeError(f"sink not ready: {f.read()!r}")
    return p, log, err_path
