#!/usr/bin/env python3
"""Writes a deterministic newc cpio archive of a staged directory tree.

    mkcpio.py --root DIR --mtime EPOCH [--node PATH:c|b:MAJOR:MINOR:MODE]... [--gzip] OUT

Determinism: entries sorted by path (a parent always precedes its children),
owners 0:0, every mtime EPOCH, inode numbers assigned in order, nlink 1 (2 for
directories), permission bits taken from the staged tree (build.sh sets them).
gzip output uses mtime 0 and no file name. Same tree in, same bytes out.
Device nodes are synthesized (--node) so no mknod is needed to stage them: the
kernel needs /dev/console before the init mounts devtmpfs.
"""
import argparse
import gzip
import os
import stat
import sys

TRAILER = "TRAILER!!!"


def header(ino, mode, nlink, mtime, size, rdev_major, rdev_minor, namesize):
    fields = [ino, mode, 0, 0, nlink, mtime, size, 0, 0, rdev_major, rdev_minor, namesize, 0]
    return b"070701" + b"".join(b"%08X" % f for f in fields)


def pad4(n):
    return b"\0" * ((4 - n % 4) % 4)


def entry(ino, name, mode, nlink, mtime, data=b"", rdev=(0, 0)):
    bname = name.encode() + b"\0"
    hdr = header(ino, mode, nlink, mtime, len(data), rdev[0], rdev[1], len(bname))
    out = hdr + bname
    out += pad4(len(out))
    out += data + pad4(len(data))
    return out


def collect(root):
    """Yields (archive name, lstat, data) for every path under root, sorted."""
    names = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        for n in dirnames + filenames:
            names.append(n if rel == "." else os.path.join(rel, n))
    for name in sorted(names, key=lambda s: s.encode()):
        full = os.path.join(root, name)
        st = os.lstat(full)
        if stat.S_ISLNK(st.st_mode):
            data = os.readlink(full).encode()
        elif stat.S_ISREG(st.st_mode):
            with open(full, "rb") as f:
                data = f.read()
        elif stat.S_ISDIR(st.st_mode):
            data = b""
        else:
            sys.exit(f"mkcpio: {full}: unsupported file type")
        yield name, st, data


def parse_node(spec):
    try:
        path, kind, major, minor, mode = spec.split(":")
        ftype = {"c": stat.S_IFCHR, "b": stat.S_IFBLK}[kind]
        return path.lstrip("/"), ftype | int(mode, 8), (int(major), int(minor))
    except (ValueError, KeyError):
        sys.exit(f"mkcpio: bad --node {spec!r}: want PATH:c|b:MAJOR:MINOR:MODE")


def build(root, mtime, nodes):
    items = []
    for name, st, data in collect(root):
        perm = stat.S_IMODE(st.st_mode)
        if stat.S_ISLNK(st.st_mode):
            perm = 0o777
        items.append((name, stat.S_IFMT(st.st_mode) | perm, data, (0, 0)))
    for spec in nodes:
        path, mode, rdev = parse_node(spec)
        items.append((path, mode, b"", rdev))
    items.sort(key=lambda it: it[0].encode())
    out = bytearray()
    for ino, (name, mode, data, rdev) in enumerate(items, start=1):
        nlink = 2 if stat.S_ISDIR(mode) else 1
        out += entry(ino, name, mode, nlink, mtime, data, rdev)
    out += entry(0, TRAILER, 0, 1, 0)
    return bytes(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--mtime", type=int, required=True)
    ap.add_argument("--node", action="append", default=[])
    ap.add_argument("--gzip", action="store_true")
    ap.add_argument("out")
    a = ap.parse_args()
    data = build(a.root, a.mtime, a.node)
    if a.gzip:
        data = gzip.compress(data, compresslevel=9, mtime=0)
    tmp = a.out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
