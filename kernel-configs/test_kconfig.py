#!/usr/bin/env python3
"""Tests of kernel-configs/kconfig.py (the suite kconfig): what a fragment
asks for against what olddefconfig kept, on text built here."""
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kconfig as K  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


class KconfigTest(unittest.TestCase):
    def test_not_set_comment_reads_as_n_and_other_comments_are_ignored(self):
        k = K.Kconfig.parse("# Linux/x86 6.1 Kernel Configuration\nCONFIG_A=y\n"
                            "# CONFIG_B is not set\n\nCONFIG_S=\"x y\"\n")
        self.assertEqual(k.entries, {"CONFIG_A": "y", "CONFIG_B": "n", "CONFIG_S": "\"x y\""})

    def test_last_fragment_wins_when_merged(self):
        base = K.Kconfig.parse("CONFIG_A=y\nCONFIG_B=y\n")
        variant = K.Kconfig.parse("# CONFIG_B is not set\n")
        self.assertEqual(base.merged(variant).entries, {"CONFIG_A": "y", "CONFIG_B": "n"})

    def test_dropped_option_is_missing_when_its_dependency_hid_it(self):
        want = K.Kconfig.parse("CONFIG_USER_NS=y\nCONFIG_INOTIFY_USER=y\n")
        final = K.Kconfig.parse("CONFIG_USER_NS=y\n")
        self.assertEqual(want.missing_from(final), [("CONFIG_INOTIFY_USER", "y", "n (absent)")])

    def test_changed_value_is_missing(self):
        want = K.Kconfig.parse("CONFIG_X=y\n")
        final = K.Kconfig.parse("CONFIG_X=m\n")
        self.assertEqual(want.missing_from(final), [("CONFIG_X", "y", "m")])

    def test_unset_option_is_satisfied_when_absent_or_not_set(self):
        want = K.Kconfig.parse("# CONFIG_YAMA is not set\n# CONFIG_B is not set\n")
        final = K.Kconfig.parse("# CONFIG_B is not set\n")
        self.assertEqual(want.missing_from(final), [])

    def test_unset_option_that_is_on_is_missing(self):
        want = K.Kconfig.parse("# CONFIG_YAMA is not set\n")
        final = K.Kconfig.parse("CONFIG_YAMA=y\n")
        self.assertEqual(want.missing_from(final), [("CONFIG_YAMA", "n", "y")])

    def test_bad_line_names_file_and_line(self):
        with self.assertRaises(K.KconfigError) as e:
            K.Kconfig.parse("CONFIG_A=y\nYAMA=y\n", "frag.config")
        self.assertEqual((e.exception.path, e.exception.line), ("frag.config", 2))
        with self.assertRaises(K.KconfigError) as e:
            K.Kconfig.parse("CONFIG_A=\n", "frag.config")
        self.assertIn("frag.config:1", str(e.exception))

    def test_absent_option_has_value_n(self):
        self.assertEqual(K.Kconfig.parse("CONFIG_A=y\n").value("CONFIG_Z"), "n")

    def test_check_command_names_each_dropped_option_and_exits_1(self):
        with tempfile.TemporaryDirectory() as d:
            paths = {}
            for name, text in (("final", "CONFIG_A=y\n"), ("base", "CONFIG_A=y\nCONFIG_B=y\n"),
                               ("variant", "CONFIG_C=m\n"), ("ok", "CONFIG_A=y\n"),
                               ("bad", "CONFIG_A=y\nnonsense\n")):
                paths[name] = os.path.join(d, name)
                with open(paths[name], "w") as f:
                    f.write(text)
            tool = [sys.executable, os.path.join(HERE, "kconfig.py"), "check"]
            p = subprocess.run(tool + [paths["final"], paths["base"], paths["variant"]],
                               capture_output=True, text=True, check=False)
            self.assertEqual(p.returncode, 1)
            self.assertEqual(p.stdout.splitlines(), [
                "option CONFIG_B: fragments ask for y, final .config has n (absent)",
                "option CONFIG_C: fragments ask for m, final .config has n (absent)"])
            p = subprocess.run(tool + [paths["final"], paths["ok"]], capture_output=True,
                               text=True, check=False)
            self.assertEqual((p.returncode, p.stdout), (0, ""))
            p = subprocess.run(tool + [paths["final"], paths["bad"]], capture_output=True,
                               text=True, check=False)
            self.assertEqual(p.returncode, 2)
            self.assertIn("bad:2: not an option", p.stderr)

    def test_committed_fragments_parse(self):
        frags = [os.path.join(HERE, "base.config")]
        vdir = os.path.join(HERE, "variants")
        frags += [os.path.join(vdir, n) for n in sorted(os.listdir(vdir)) if n.endswith(".config")]
        for path in frags:
            K.Kconfig.read(path)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors)
    print(f"{result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
