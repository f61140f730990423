"""initramfs/host/stage.py: the image's modes, cell ids and names, as
build.sh's own loops had them (byte-identical images: initramfs-repro)."""

import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
STAGE = os.path.join(HERE, "..", "host", "stage.py")
sys.path.insert(0, os.path.join(HERE, "..", "host"))
import stage  # noqa: E402


def write(path, mode, text="x"):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, mode)


class Stage(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.root = os.path.join(self.tmp.name, "stage")
        for d in ("bin", "cells", "agents"):
            os.makedirs(os.path.join(self.root, d))
        self.src = os.path.join(self.tmp.name, "src")
        os.makedirs(self.src)

        # A stand-in for the static busybox: only its --list is asked.
        self.busybox = os.path.join(self.tmp.name, "busybox")
        write(self.busybox, 0o755, "#!/bin/sh\nprintf 'busybox\\nsh\\nls\\n\\n'\n")

    def run_stage(self, *args):
        return subprocess.run([sys.executable, STAGE, self.root, "--busybox", self.busybox,
                               *args], capture_output=True, text=True, check=False)

    def test_modes_are_normalized_but_an_unreadable_file_keeps_its_bits(self):
        for name, mode in (("exec", 0o700), ("plain", 0o600), ("hidden", 0o111),
                           ("group-x", 0o640 | 0o010)):
            write(os.path.join(self.src, name), mode)
        res = self.run_stage("--agents", self.src)
        self.assertEqual(res.returncode, 0, res.stderr)
        got = {n: stat.S_IMODE(os.stat(os.path.join(self.root, "agents", n)).st_mode)
               for n in os.listdir(os.path.join(self.root, "agents"))}
        self.assertEqual(got, {"exec": 0o755, "plain": 0o644, "hidden": 0o111,
                               "group-x": 0o755})

    def test_cells_are_indexed_in_byte_order_and_dot_files_skipped(self):
        for cid in ("b+k", "B+k", "a.x=1,user=root+k", ".hidden"):
            write(os.path.join(self.src, cid + ".cell"), 0o600)
        write(os.path.join(self.src, "notes.txt"), 0o644)
        res = self.run_stage("--cells", self.src)
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(os.path.join(self.root, "cells", "index"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "B+k\na.x=1,user=root+k\nb+k\n")
        self.assertEqual(sorted(os.listdir(os.path.join(self.root, "cells"))),
                         ["B+k.cell", "a.x=1,user=root+k.cell", "b+k.cell", "index"])

    def test_bad_cell_id_is_refused_naming_the_file(self):
        write(os.path.join(self.src, "bad id.cell"), 0o644)
        res = self.run_stage("--cells", self.src)
        self.assertEqual(res.returncode, 1)
        self.assertIn("bad id.cell: cell id 'bad id' has characters outside", res.stderr)

    def test_a_name_given_twice_is_refused(self):
        other = os.path.join(self.tmp.name, "other")
        os.makedirs(other)
        for d in (self.src, other):
            write(os.path.join(d, "agent"), 0o755)
        res = self.run_stage("--agents", self.src, "--agents", other)
        self.assertEqual(res.returncode, 1)
        self.assertIn("agent agent given twice", res.stderr)
        shutil.rmtree(self.root)
        for d in ("bin", "cells", "agents"):
            os.makedirs(os.path.join(self.root, d))
        res = self.run_stage("--cells", os.path.join(self.tmp.name, "absent"))
        self.assertIn("--cells", res.stderr)
        self.assertIn("not a directory", res.stderr)

    def test_every_busybox_applet_is_a_relative_link(self):
        res = self.run_stage()
        self.assertEqual(res.returncode, 0, res.stderr)
        links = os.listdir(os.path.join(self.root, "bin"))
        self.assertEqual(sorted(links), ["ls", "sh"])
        self.assertTrue(all(os.readlink(os.path.join(self.root, "bin", n)) == "busybox"
                            for n in links))
        self.assertEqual(stage.normalized_mode(0o100444), 0o644)


if __name__ == "__main__":
    unittest.main()
