#!/usr/bin/env python3
"""Selects and unpacks the modules a guest carries (initramfs/modules.sh).

    modtree.py --tree DIR --dest DIR SUBTREE...

DIR is lib/modules/<release> of an unpacked kernel package; every module
under one of the SUBTREEs (paths relative to DIR, such as kernel/net) and
every module they depend on (modinfo `depends=`, followed to the end) is
written decompressed to --dest at its path with `.ko` as the suffix, mode
0644. It prints the number of modules written. Stops (exit 1, naming the
module) on a module name found twice or a dependency the package lacks.

One process instead of a shell loop: the loop forked six to eight programs
a module (the decompressor, tr, sed, chmod, mkdir), about 65 s for the 557
modules of a 7.3 kernel on this project's 2-core machine, which a fresh
machine's `make test` paid once for each of its five kernels.
"""

import argparse
import collections
import gzip
import lzma
import os
import re
import subprocess
import sys


def die(msg):
    print(f"initramfs/modules.sh: {msg}", file=sys.stderr)
    sys.exit(1)


def modname(rel):
    """The kernel's name of a module file: the base name without its
    compression suffixes and .ko, dashes as underscores (as depends= and
    modprobe spell it)."""
    b = rel.rsplit("/", 1)[-1]
    for suffix in (".xz", ".zst", ".gz", ".ko"):
        if b.endswith(suffix):
            b = b[: -len(suffix)]
    return b.replace("-", "_")


def unpacked(path):
    """The module's bytes, decompressed."""
    if path.endswith(".ko.xz"):
        with lzma.open(path) as f:
            return f.read()
    if path.endswith(".ko.gz"):
        with gzip.open(path) as f:
            return f.read()
    if path.endswith(".ko.zst"):
        # Python's standard library has no zstd before 3.14.
        return subprocess.run(["zstd", "-q", "-dc", "--", path], check=True,
                              stdout=subprocess.PIPE).stdout
    if path.endswith(".ko"):
        with open(path, "rb") as f:
            return f.read()
    die(f"{path}: not a kernel module")
    return b""


def depends_of(data):
    """The module names its modinfo `depends=` strings list (every such
    string, as `tr '\\0' '\\n' | sed -n 's/^depends=//p'` read them)."""
    out = []
    for field in re.split(rb"[\0\n]", data):
        if field.startswith(b"depends="):
            for dep in field[len(b"depends="):].split(b","):
                if dep:
                    out.append(dep.decode("utf-8", "surrogateescape").replace("-", "_"))
    return out


def module_files(tree):
    """{name: path relative to tree} for every kernel/**/*.ko* file."""
    found = []
    for root, _, files in os.walk(os.path.join(tree, "kernel")):
        for name in files:
            if ".ko" in name and os.path.isfile(os.path.join(root, name)):
                found.append(os.path.relpath(os.path.join(root, name), tree))
    path_of = {}
    for rel in sorted(found, key=lambda p: p.encode("utf-8", "surrogateescape")):
        name = modname(rel)
        if name in path_of:
            die(f"{tree}: module {name} twice ({path_of[name]}, {rel})")
        path_of[name] = rel
    if not path_of:
        die(f"{tree}: no kernel/**/*.ko*")
    return path_of


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", required=True)
    ap.add_argument("--dest", required=True)
    ap.add_argument("subtrees", nargs="+")
    args = ap.parse_args()
    path_of = module_files(args.tree)
    queue = collections.deque(modname(rel) for rel in path_of.values()
                              if any(rel.startswith(s + "/") for s in args.subtrees))
    taken = set()
    while queue:
        name = queue.popleft()
        if name in taken:
            continue
        taken.add(name)
        rel = path_of.get(name)
        if rel is None:
            die(f"{args.tree}: a module depends on {name}, which the package lacks")
        data = unpacked(os.path.join(args.tree, rel))
        out = os.path.join(args.dest, rel[: rel.rindex(".ko")] + ".ko")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as f:
            f.write(data)
        os.chmod(out, 0o644)
        queue.extend(d for d in depends_of(data) if d not in taken)
    print(len(taken))


if __name__ == "__main__":
    main()
