"""The appliance's shared vocabulary, written once: the supervisor's
verdicts, every outcome a cell can have, the kernel features a scenario may
require and the guest reports (initramfs/guest/features.c prints the same
names), and the file digest every record uses. Imported by the cell path
(cell_result.py), the matrix and the scenario compiler. Stdlib only."""

import hashlib
import os
import re

VERDICTS = ("pass", "fail", "capability-error")

# A cell's id (the scenario cell and its kernel, scenario.cell_id): the
# characters the compiler may write, the host reads back and the guest's init
# checks in shell (initramfs/guest/init: *[!A-Za-z0-9._=,+-]*).
CELL_ID_CHARS = "A-Za-z0-9._=,+-"
CELL_ID_RE = re.compile(f"^[{CELL_ID_CHARS}]+$")
# A cell's deadline in seconds (TCG-based) when its scenario names none: the
# compiler writes it into the cell file, and a cell file without one gets it.
DEFAULT_TIMEOUT = 60

# Every outcome, in the order reports count them (docs/guest.md decides
# them; cell_result.decide() is where).
OUTCOMES = ("ok", "mismatch", "false-green", "oracle-mismatch", "supervisor-hang",
            "precondition-error", "timeout", "panic", "boot-fail", "infra-error", "skipped",
            "not-run")
# not-run: a cell that a run told to stop (SIGTERM, SIGINT, SIGHUP) never
# decided; matrix.py alone gives it, never a guest or a runner's judgement.
# Printed in their own block at the end, loudest: the supervisor (or the
# ground truth) says something is fine when it is not, or the supervisor
# hung (the guest's hang monitor saw it make no progress).
LOUD_OUTCOMES = ("false-green", "oracle-mismatch", "supervisor-hang")
GOOD_OUTCOMES = ("ok", "skipped")

# How a cell shares its boot (ISOLATION=, docs/guest.md "Batches"): batch
# runs many cells per boot with the reset proven between them; boot gives
# every cell its own boot (release qualification, bisecting an interaction).
ISOLATIONS = ("batch", "boot")

# The ports resolvers sort a name's addresses on, with a UDP connect to each
# that sends nothing (glibc's getaddrinfo without a service 0, Go's resolver
# 9, musl's getaddrinfo 65535): a supervisor may refuse such a connect
# without counting it a denial (docs/design.md; supervisor/call.c has the
# supervisor's own table). The oracle accepts that refusal nowhere else.
SORT_PROBE_PORTS = (0, 9, 65535)

# The features that decide verdicts, in the order reports print them.
FEATURES = ("seccomp_notify", "pidfd_getfd", "process_vm_readv", "kcmp", "yama", "ia32",
            "x32", "io_uring", "pty", "userns", "coredump", "multicast")


_DIGESTS = {}


def sha256_file(path):
    """The hex sha256 of a file, read in 1 MiB chunks. Remembered per
    process for a file whose inode, size and mtime have not changed: a batch
    boot's one process records the same kernel and initramfs (50 MB) for
    every cell, and hashing them again per cell was most of its CPU."""
    st = os.stat(path)
    key = (os.path.realpath(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if key in _DIGESTS:
        return _DIGESTS[key]
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    _DIGESTS[key] = h.hexdigest()
    return _DIGESTS[key]
