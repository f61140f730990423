#!/usr/bin/env python3
"""Kernel configurations as data: a fragment or a .config read into
{CONFIG_NAME: value}, where "# CONFIG_X is not set" is "n" (kunit's
kunit_config.Kconfig does the same for its .kunitconfig files).

build-kernel.sh asks, after merge_config.sh and olddefconfig, whether every
option the fragments set survived (an option whose dependency is missing is
dropped silently by Kconfig):

    kconfig.py check CONFIG FRAGMENT...

prints one line per option that did not ("option CONFIG_X: fragments ask for
y, final .config has n (absent)") and exits 1, or exits 0. A line that is
neither an assignment, a "not set" comment, another comment nor blank is an
error naming the file and line (exit 2)."""
import re
import sys

_SET = re.compile(r"^(CONFIG_[A-Za-z0-9_]+)=(.*)$")
_UNSET = re.compile(r"^# (CONFIG_[A-Za-z0-9_]+) is not set$")


class KconfigError(Exception):
    def __init__(self, path, line, msg):
        super().__init__(f"{path}:{line}: {msg}")
        self.path, self.line = path, line


class Kconfig:
    """The options a file sets, in file order, the last assignment of a
    name winning (as merge_config.sh merges)."""

    def __init__(self, entries=None):
        self.entries = dict(entries or {})

    @classmethod
    def parse(cls, text, path="<text>"):
        entries = {}
        for no, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            m = _SET.match(line)
            if m:
                if m.group(2) == "":
                    raise KconfigError(path, no, f"{m.group(1)}= has no value")
                entries[m.group(1)] = m.group(2)
                continue
            m = _UNSET.match(line)
            if m:
                entries[m.group(1)] = "n"
                continue
            if line and not line.startswith("#"):
                raise KconfigError(path, no, f"not an option: {raw!r} (want CONFIG_X=VALUE "
                                   f"or '# CONFIG_X is not set')")
        return cls(entries)

    @classmethod
    def read(cls, path):
        with open(path, encoding="utf-8") as f:
            return cls.parse(f.read(), path)

    def merged(self, other):
        """self with other's assignments over it."""
        return Kconfig({**self.entries, **other.entries})

    def value(self, name):
        """What the kernel built from this file has: absent means off."""
        return self.entries.get(name, "n")

    def missing_from(self, final):
        """[(name, wanted, had)] for every option of self that final does not
        have as asked ("n" is satisfied by an absent option, which Kconfig
        leaves out when its dependencies hide it)."""
        out = []
        for name, want in sorted(self.entries.items()):
            have = final.entries.get(name)
            if have == want or (want == "n" and have is None):
                continue
            out.append((name, want, "n (absent)" if have is None else have))
        return out


def main(argv):
    if len(argv) < 3 or argv[0] != "check":
        print(__doc__, file=sys.stderr)
        return 2
    try:
        final = Kconfig.read(argv[1])
        wanted = Kconfig()
        for frag in argv[2:]:
            wanted = wanted.merged(Kconfig.read(frag))
    except (OSError, KconfigError) as e:
        print(f"kconfig: {e}", file=sys.stderr)
        return 2
    bad = wanted.missing_from(final)
    for name, want, have in bad:
        print(f"option {name}: fragments ask for {want}, final .config has {have}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
