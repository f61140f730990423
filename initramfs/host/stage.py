#!/usr/bin/env python3
"""Stages the many small parts of the guest image for initramfs/build.sh in
one process: busybox's applet links, the cell files and the agents.

    stage.py STAGE --busybox BIN [--cells DIR]... [--agents DIR]...

build.sh did this with a fork or three per file (`ln -s`, `stat`, `cp`,
`chmod`): about 3 s of every matrix run's set-up with the project's 90
agents, and 8-10 s more for a full matrix's 2500 cell files. The rules are
build.sh's: modes normalized so the build machine's umask never reaches the
image (0755 for a file with any execute bit, 0644 otherwise), except that a
file with no read bit at all (an agent meant to be unreadable, mode 0111)
keeps its bits; a cell id outside [A-Za-z0-9._=,+-] or a name given twice
stops the build, naming the file. Writes STAGE/bin/APPLET links,
STAGE/cells/ID.cell and STAGE/cells/index (the ids, sorted bytewise),
STAGE/agents/NAME. Exits 1 with `initramfs/build.sh: ...` on bad input.
Python 3 standard library only.
"""

import argparse
import os
import re
import shutil
import stat
import subprocess
import sys

CELL_ID = re.compile(r"[A-Za-z0-9._=,+-]+")


class StageError(Exception):
    """Input the image cannot be built from; the message names the file."""


def normalized_mode(src_mode):
    """The image's mode for a file of `src_mode` (build.sh's rule above)."""
    bits = stat.S_IMODE(src_mode)
    if bits & 0o444 == 0:
        return bits
    return 0o755 if bits & 0o111 else 0o644


def install_file(src, dst):
    """Copies src to dst (its content only) with the normalized mode."""
    mode = normalized_mode(os.stat(src).st_mode)
    shutil.copyfile(src, dst)
    os.chmod(dst, mode)


def stage_busybox(stage, busybox):
    """STAGE/bin/APPLET -> busybox for every applet the static busybox
    lists (its own copy is staged by build.sh)."""
    res = subprocess.run([busybox, "--list"], capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise StageError(f"{busybox} --list failed (status {res.returncode})")
    for applet in sorted(set(res.stdout.split())):
        if applet != "busybox":
            os.symlink("busybox", os.path.join(stage, "bin", applet))


def copy_dirs(dirs, dest, flag, kind, key_of):
    """Copies each file of `dirs` that key_of(name, src) gives a key for
    (None: not one of them) into dest under its own name; build.sh's glob
    took no dot files. Returns the keys. A key seen twice stops the build."""
    keys = set()
    for d in dirs:
        if not os.path.isdir(d):
            raise StageError(f"{flag} {d}: not a directory")
        for name in sorted(os.listdir(d)):
            src = os.path.join(d, name)
            key = None if name.startswith(".") else key_of(name, src)
            if key is None:
                continue
            if key in keys:
                raise StageError(f"{src}: {kind} {key} given twice")
            keys.add(key)
            install_file(src, os.path.join(dest, name))
    return keys


def cell_id(name, src):
    """The id of a cell file's name, None for another file."""
    if not name.endswith(".cell"):
        return None
    cid = name[:-len(".cell")]
    if not CELL_ID.fullmatch(cid):
        raise StageError(f"{src}: cell id '{cid}' has characters outside [A-Za-z0-9._=,+-]")
    return cid


def stage_cells(stage, dirs):
    """Every DIR/*.cell as STAGE/cells/ID.cell, and STAGE/cells/index:
    every id, one a line, in byte order (LC_ALL=C sort's). A batch boot
    names its cells by their line numbers there (egress.cells=3,4,9),
    which keeps the kernel command line under its 2048 bytes
    (docs/guest.md)."""
    dest = os.path.join(stage, "cells")
    ids = copy_dirs(dirs, dest, "--cells", "cell", cell_id)
    index = os.path.join(dest, "index")
    with open(index, "wb") as f:
        f.write(b"".join(c.encode() + b"\n" for c in sorted(ids, key=os.fsencode)))
    os.chmod(index, 0o644)
    return len(ids)


def stage_agents(stage, dirs):
    """Every regular file of each DIR as STAGE/agents/NAME."""
    return len(copy_dirs(dirs, os.path.join(stage, "agents"), "--agents", "agent",
                         lambda name, src: name if os.path.isfile(src) else None))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="stage.py")
    ap.add_argument("stage")
    ap.add_argument("--busybox", required=True)
    ap.add_argument("--cells", action="append", default=[])
    ap.add_argument("--agents", action="append", default=[])
    opts = ap.parse_args(argv)
    try:
        stage_busybox(opts.stage, opts.busybox)
        stage_cells(opts.stage, opts.cells)
        stage_agents(opts.stage, opts.agents)
    except (StageError, OSError) as e:
        print(f"initramfs/build.sh: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
