"""egress-frame (initramfs/guest/frame.c) against the host's own frame
decoder (cell_result.parse_frame): built with the host compiler and the
sanitizers, run on files like init's sections (empty, binary, larger than
its read buffer, one missing, one without its .gz)."""
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(TOP, "initramfs", "host"))

import cell_result  # noqa: E402

NONCE = "00ff"


class FrameProgram(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="frame-test.")
        cls.prog = os.path.join(cls.tmp, "egress-frame")
        cc = shutil.which("cc") or shutil.which("gcc")
        if not cc:
            raise unittest.SkipTest("no host C compiler")
        subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE",
                        "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-o",
                        cls.prog, os.path.join(TOP, "initramfs", "guest", "frame.c")],
                       check=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def files(self, contents, gz=True):
        d = tempfile.mkdtemp(dir=self.tmp)
        args = []
        for name, data in contents.items():
            path = os.path.join(d, name)
            args.append(f"{name}={path}")
            if data is None:
                continue
            with open(path, "wb") as f:
                f.write(data)
            if gz:
                with open(path + ".gz", "wb") as f:
                    f.write(gzip.compress(data, 9))
        return args

    def run_frame(self, args):
        return subprocess.run([self.prog] + args, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, check=False)

    def test_sections_decode_with_the_hosts_decoder_byte_for_byte(self):
        contents = {"meta": b"nonce=00ff\ncell=x\n", "empty": b"",
                    "binary": bytes(range(256)) * 3,
                    "large": os.urandom(200000), "missing": None}
        res = self.run_frame(self.files(contents))
        self.assertEqual(res.returncode, 0, res.stderr)
        raw = (f"\n@@egress-result v1 nonce={NONCE} cell=x seq=1\n".encode() + res.stdout
               + f"@@egress-end v1 nonce={NONCE}\n".encode())
        _, _, sections = cell_result.parse_frame(raw, NONCE)
        want = {k: v for k, v in contents.items() if v is not None}
        self.assertEqual(sections, want)
        self.assertEqual([ln.split()[1] for ln in res.stdout.decode().splitlines()
                          if ln.startswith("@@section")], list(want))

    def test_a_file_without_its_gzip_is_an_error_not_a_section(self):
        args = self.files({"meta": b"a\n"}) + self.files({"report": b"b\n"}, gz=False)
        res = self.run_frame(args)
        self.assertEqual(res.returncode, 1)
        self.assertIn(b"report", res.stderr)
        self.assertNotIn(b"@@section report", res.stdout)

    def test_an_argument_without_a_name_is_refused(self):
        res = self.run_frame(["=/nonexistent"])
        self.assertEqual(res.returncode, 2)
        self.assertIn(b"NAME=FILE", res.stderr)


if __name__ == "__main__":
    unittest.main()
