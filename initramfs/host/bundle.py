#!/usr/bin/env python3
"""Supervisor bundles (docs/supervisor-contract.md): what SUPERVISOR= names.

A bundle is either a file (an implicit bundle: that file is the entry, exit
statuses 0/1/3, report appliance-v1) or a directory with a manifest
`bundle.conf`. Both take the same path from here on: parsed and validated
once (errors `FILE:LINE: message`, at set-up, before any boot), hashed
(sha256 of every file and of the manifest, and one bundle digest over
them), staged into the initramfs under /opt/supervisor/ with their modes,
and described to the guest in /etc/egress/bundle.env. initramfs/build.sh,
scenarios/tools/matrix.py and cell_run.py all use this module.

    bundle.py check PATH          exit 0, or 2 with FILE:LINE errors
    bundle.py json PATH           the bundle's record (name, files, digest)
    bundle.py stage PATH ROOT     copies it into ROOT/opt/supervisor/

Stdlib only.
"""
import hashlib
import json
import os
import re
import shutil
import stat
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from contract import DESIGN_TRAITS, OUR_DESIGN, VERDICTS, sha256_file  # noqa: E402

MANIFEST = "bundle.conf"
GUEST_DIR = "/opt/supervisor"
GUEST_ENV = "/etc/egress/bundle.env"
REPORT_KINDS = ("appliance-v1", "none")
SINGLE_KEYS = ("name", "entry", "report", "exit.pass", "exit.fail", "exit.capability-error",
               "design")
NAME_RE = re.compile(r"^[A-Za-z0-9._+-]{1,64}$")
# Bundle file paths: plain relative names, no `..`, nothing a shell or the
# guest's env file would read twice.
PATH_RE = re.compile(r"^[A-Za-z0-9._+-]+(/[A-Za-z0-9._+-]+)*$")
# The statuses the appliance keeps for itself: 2 is a bad invocation
# (infra-error), 125-127 are envexec's and the shell's "could not run",
# 128+N a death by signal. A manifest may not claim them.
RESERVED_EXITS = frozenset([2, 125, 126, 127] + list(range(128, 256)))
IMPLICIT_EXIT = {"pass": [0], "fail": [1], "capability-error": [3]}


class BundleError(Exception):
    """Every problem found, one `FILE:LINE: message` per line."""


def _parse_exits(val):
    out = []
    for word in val.replace(",", " ").split():
        if not word.isdigit() or int(word) > 255:
            raise ValueError(f"{word!r}: want exit statuses 0-255")
        if int(word) in RESERVED_EXITS:
            raise ValueError(f"{word}: reserved by the appliance (2 bad invocation, "
                             "125-127 not run, 128+ killed by a signal)")
        out.append(int(word))
    if not out:
        raise ValueError("want at least one exit status")
    return out


def _parse_design(val):
    """`design = TRAIT...` or `design = none` -> a tuple of traits (contract
    DESIGN_TRAITS; docs/supervisor-contract.md "Design traits")."""
    words = val.replace(",", " ").split()
    if words == ["none"]:
        return ()
    bad = [w for w in words if w not in DESIGN_TRAITS]
    if not words or bad:
        raise ValueError(f"{' '.join(bad) or val!r}: want `none` or traits of "
                         f"{', '.join(DESIGN_TRAITS)}")
    if len(set(words)) != len(words):
        raise ValueError("a trait is given twice")
    return tuple(t for t in DESIGN_TRAITS if t in words)


def parse_manifest(path, text):
    """Manifest text -> {key: value} with `file` a list of (path, line);
    BundleError listing every bad line."""
    errs, single, files, lines = [], {}, [], {}
    for no, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, eq, val = line.partition("=")
        key, val = key.strip(), val.strip()
        where = f"{path}:{no}"
        if not eq or not key:
            errs.append(f"{where}: want `key = value`")
            continue
        if key == "file":
            if not PATH_RE.match(val) or ".." in val.split("/"):
                errs.append(f"{where}: file = {val!r}: want a relative path of "
                            "[A-Za-z0-9._+-] parts, no `..`, not absolute")
            elif val == MANIFEST:
                errs.append(f"{where}: file = {MANIFEST}: the manifest is hashed, not installed")
            elif any(val == f for f, _ in files):
                errs.append(f"{where}: file = {val} given twice")
            else:
                files.append((val, no))
            continue
        if key not in SINGLE_KEYS:
            errs.append(f"{where}: unknown key {key!r} (known: file, {', '.join(SINGLE_KEYS)})")
            continue
        if key in single:
            errs.append(f"{where}: {key} given twice (first on line {lines[key]})")
            continue
        try:
            if key == "name" and not NAME_RE.match(val):
                raise ValueError(f"{val!r}: want 1-64 of [A-Za-z0-9._+-]")
            if key == "report" and val not in REPORT_KINDS:
                raise ValueError(f"{val!r}: want one of {', '.join(REPORT_KINDS)}")
            if key == "entry" and (not PATH_RE.match(val) or ".." in val.split("/")):
                raise ValueError(f"{val!r}: want a relative path, no `..`")
            if key == "design":
                val = _parse_design(val)
            single[key] = _parse_exits(val) if key.startswith("exit.") else val
            lines[key] = no
        except ValueError as e:
            errs.append(f"{where}: {key}: {e}")
    for key in ("name", "entry", "report", "exit.pass"):
        if key not in single and not any(f": {key}" in e for e in errs):
            errs.append(f"{path}:{len(text.splitlines()) or 1}: missing `{key} = ...`")
    seen = {}
    for v in ("pass", "fail", "capability-error"):
        for code in single.get(f"exit.{v}", []):
            if code in seen:
                errs.append(f"{path}:{lines[f'exit.{v}']}: exit status {code} is both "
                            f"{seen[code]} and {v}")
            seen.setdefault(code, v)
    if "entry" in single and files and single["entry"] not in {f for f, _ in files}:
        errs.append(f"{path}:{lines['entry']}: entry = {single['entry']} is not one of the "
                    "`file =` lines")
    if not files:
        errs.append(f"{path}:{len(text.splitlines()) or 1}: no `file = ...` line")
    if errs:
        raise BundleError("\n".join(errs))
    single["file"] = files
    return single


def _digest(manifest_sha, files):
    """One digest over the manifest and every file (path, mode, sha256), in
    path order: what the guest carries and the host compares."""
    h = hashlib.sha256(f"egress-bundle/1 manifest {manifest_sha}\n".encode())
    for f in sorted(files, key=lambda x: x["path"]):
        h.update(f"file {f['path']} {f['mode']} {f['sha256']}\n".encode())
    return h.hexdigest()


def load(path):
    """The bundle at PATH (file or directory) as a dict: name, source, kind,
    entry, files [{path, src, mode, sha256}], exit {status: verdict},
    report, manifest_sha256, digest. BundleError when it cannot be used."""
    src = os.path.abspath(path)
    if os.path.isfile(src):
        if not os.access(src, os.X_OK):
            raise BundleError(f"{src}: supervisor file is not executable")
        base = os.path.basename(src)
        if not PATH_RE.match(base):
            raise BundleError(f"{src}: file name {base!r}: want [A-Za-z0-9._+-]")
        conf = {"name": base, "entry": base, "report": "appliance-v1",
                "exit.pass": IMPLICIT_EXIT["pass"], "exit.fail": IMPLICIT_EXIT["fail"],
                "exit.capability-error": IMPLICIT_EXIT["capability-error"],
                "file": [(base, 0)]}
        root, kind = os.path.dirname(src), "file"
        # The implicit manifest, written out, is what gets hashed: a file
        # and a directory bundle holding the same file and an equal manifest
        # hash alike.
        manifest_text = (f"name = {base}\nentry = {base}\nfile = {base}\nexit.pass = 0\n"
                         "exit.fail = 1\nexit.capability-error = 3\nreport = appliance-v1\n")
    elif os.path.isdir(src):
        mpath = os.path.join(src, MANIFEST)
        if not os.path.isfile(mpath):
            raise BundleError(f"{mpath}:1: no manifest (a directory bundle needs {MANIFEST})")
        with open(mpath, encoding="utf-8", errors="replace") as f:
            manifest_text = f.read()
        conf = parse_manifest(mpath, manifest_text)
        root, kind = src, "directory"
    else:
        raise BundleError(f"{src}: no such file or directory (SUPERVISOR=FILE|DIR)")
    errs, files = [], []
    for rel, no in conf["file"]:
        p = os.path.join(root, rel)
        where = f"{os.path.join(root, MANIFEST)}:{no}" if kind == "directory" else src
        if os.path.islink(p) or not os.path.isfile(p):
            errs.append(f"{where}: file = {rel}: not a regular file in the bundle")
            continue
        mode = stat.S_IMODE(os.stat(p).st_mode)
        if rel == conf["entry"] and not mode & 0o111:
            errs.append(f"{where}: entry {rel} is not executable")
        files.append({"path": rel, "src": p, "mode": f"{mode:04o}", "sha256": sha256_file(p)})
    if errs:
        raise BundleError("\n".join(errs))
    exits = {}
    for v in VERDICTS:
        for code in conf.get(f"exit.{v}", []):
            exits[code] = v
    manifest_sha = hashlib.sha256(manifest_text.encode()).hexdigest()
    # No `design` line: judged as ours (every trait), as before traits existed.
    design = conf.get("design", OUR_DESIGN)
    return {"name": conf["name"], "source": src, "kind": kind, "entry": conf["entry"],
            "files": files, "exit": exits, "report": conf["report"], "design": list(design),
            "manifest_sha256": manifest_sha, "digest": _digest(manifest_sha, files)}


def snapshot(b, dest):
    """Copies bundle B into the new directory DEST (a file bundle as its
    one file, a directory bundle with its manifest) and returns (path,
    bundle loaded from there, its source still B's). A run uses the copy,
    so rebuilding the supervisor while it runs changes nothing it boots.
    BundleError when the copy is not B (a file changed under the copy)."""
    os.makedirs(dest)
    if b["kind"] == "file":
        path = os.path.join(dest, b["files"][0]["path"])
        shutil.copyfile(b["files"][0]["src"], path)
        os.chmod(path, int(b["files"][0]["mode"], 8))
    else:
        path = dest
        shutil.copyfile(os.path.join(b["source"], MANIFEST), os.path.join(dest, MANIFEST))
        for f in b["files"]:
            dst = os.path.join(dest, f["path"])
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(f["src"], dst)
            os.chmod(dst, int(f["mode"], 8))
    copy = load(path)
    if copy["digest"] != b["digest"]:
        raise BundleError(f"{b['source']}: changed while it was copied into {dest} "
                          f"(a build running beside the matrix?)")
    copy["source"] = b["source"]
    return path, copy


def record(b):
    """What summary.json and cell.json keep of a bundle."""
    return {"name": b["name"], "source": b["source"], "kind": b["kind"], "entry": b["entry"],
            "report": b["report"], "exit": {str(k): v for k, v in sorted(b["exit"].items())},
            "design": list(b.get("design", OUR_DESIGN)),
            "manifest_sha256": b["manifest_sha256"], "digest": b["digest"],
            "files": {f["path"]: f["sha256"] for f in b["files"]}}


def _mkdirs_0755(root, guest_path):
    """Creates ROOT/GUEST_PATH and every directory on the way that is not
    there, each 0755: a mode given to makedirs passes through the umask, so
    no build machine's umask reaches the image (initramfs-repro-test builds
    under umask 077)."""
    d = root
    for part in guest_path.strip("/").split("/"):
        d = os.path.join(d, part)
        if not os.path.isdir(d):
            os.mkdir(d)
            os.chmod(d, 0o755)


def stage(b, root):
    """Copies the bundle's files into ROOT/opt/supervisor/ with their modes
    (owners are set by the cpio writer) and writes ROOT/etc/egress/bundle.env,
    which the guest's init reads: name, entry, report kind, digest."""
    gdir = os.path.join(root, GUEST_DIR.lstrip("/"))
    _mkdirs_0755(root, GUEST_DIR)
    for f in b["files"]:
        dst = os.path.join(gdir, f["path"])
        d = os.path.dirname(dst)
        while d != gdir and not os.path.isdir(d):
            os.makedirs(d, mode=0o755)
            os.chmod(d, 0o755)
        shutil.copyfile(f["src"], dst)
        os.chmod(dst, int(f["mode"], 8))
    _mkdirs_0755(root, os.path.dirname(GUEST_ENV))
    env = os.path.join(root, GUEST_ENV.lstrip("/"))
    with open(env, "w", encoding="ascii") as f:
        f.write(f"BUNDLE_NAME={b['name']}\nBUNDLE_ENTRY={GUEST_DIR}/{b['entry']}\n"
                f"BUNDLE_REPORT={b['report']}\nBUNDLE_DIGEST={b['digest']}\n")
    os.chmod(env, 0o644)


def main(argv):
    if len(argv) < 2 or argv[0] not in ("check", "json", "stage") or \
            (argv[0] == "stage") != (len(argv) == 3) or len(argv) > 3:
        print(__doc__.split("\n\n")[2], file=sys.stderr)
        return 2
    try:
        b = load(argv[1])
    except BundleError as e:
        print(f"bundle: {e}", file=sys.stderr)
        return 2
    if argv[0] == "json":
        print(json.dumps(record(b), indent=2))
    elif argv[0] == "stage":
        stage(b, argv[2])
        print(f"{b['name']} {b['digest']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
