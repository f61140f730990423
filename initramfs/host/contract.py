"""The appliance's shared vocabulary, written once: the supervisor's
verdicts, every outcome a cell can have, the kernel features a scenario may
require and the guest reports (initramfs/guest/features.c prints the same
names), and the file digest every record uses. Imported by the cell path
(cell_result.py), the matrix and the scenario compiler. Stdlib only."""

import hashlib

VERDICTS = ("pass", "fail", "capability-error")

# Every outcome, in the order reports count them (docs/guest.md decides
# them; cell_result.decide() is where).
OUTCOMES = ("ok", "mismatch", "false-green", "oracle-mismatch", "supervisor-hang",
            "precondition-error", "timeout", "panic", "boot-fail", "infra-error", "skipped")
# Printed in their own block at the end, loudest: the supervisor (or the
# ground truth) says something is fine when it is not, or the supervisor
# hung (the guest's hang monitor saw it make no progress).
LOUD_OUTCOMES = ("false-green", "oracle-mismatch", "supervisor-hang")
GOOD_OUTCOMES = ("ok", "skipped")

# The features that decide verdicts, in the order reports print them.
FEATURES = ("seccomp_notify", "pidfd_getfd", "process_vm_readv", "yama", "ia32", "x32",
            "io_uring")


def sha256_file(path):
    """The hex sha256 of a file, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
