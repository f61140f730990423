#!/usr/bin/env python3
"""The accelerator choice and the one QEMU launcher (initramfs/host/launcher.py,
cell_run.py behind `run-vm.sh cell`), against fake QEMUs on $QEMU that boot,
abort, hang or fail per accelerator: no dependence on this machine's KVM.

    python3 initramfs/tests/test_launcher.py
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(TOP, "initramfs", "host"))
import launcher as L  # noqa: E402

# A fake qemu-system-x86_64. BEHAVIOUR maps the accelerator to what it does
# with the floor/canary guest; a cell's guest (no floor_end= on the kernel
# line) gets CELL_BEHAVIOUR. Every call's argv is appended to $FAKE_QEMU_LOG.
#   boot:  print the floor marker on the console, exit 0 (a guest that booted)
#   abort: print KVM's MSR error and abort (what this project's CI machine does)
#   hang:  never print anything (a KVM guest spinning in the kernel's entry)
#   fail:  exit 1 with an error
FAKE = r'''#!/usr/bin/env python3
import json, os, sys, time
BEHAVIOUR = %(behaviour)r
CELL_BEHAVIOUR = %(cell)r
a = sys.argv[1:]
with open(os.environ["FAKE_QEMU_LOG"], "a") as f:
    f.write(json.dumps(a) + "\n")
if a == ["--version"]:
    print("QEMU emulator version 0.0.0 (fake)")
    sys.exit(0)
accel = a[a.index("-accel") + 1]
append = a[a.index("-append") + 1]
console = next(x.split("path=", 1)[1] for x in a if x.startswith("file,id=console,path="))
what = BEHAVIOUR[accel] if "floor_end=" in append else CELL_BEHAVIOUR
if what == "boot":
    with open(console, "a") as f:
        f.write("EGRESS-FLOOR-POWEROFF\n")
    sys.exit(0)
if what == "abort":
    print("qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69", file=sys.stderr)
    sys.stderr.flush()
    os.abort()
if what == "hang":
    time.sleep(600)
print("qemu-system-x86_64: fake failure under " + accel, file=sys.stderr)
sys.exit(1)
'''

CELL = b"scenario=demo\ncell=demo.x=1+debian-6.1\nexpect=fail\ntimeout=30\n"


class FakeQemu(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="launcher-test-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.kernel = os.path.join(self.dir, "vmlinuz")
        with open(self.kernel, "wb") as f:
            f.write(b"not a kernel: the fake never reads it")
        self.log = os.path.join(self.dir, "qemu.log")
        self.env = {"QEMU": os.environ.get("QEMU"), "ACCEL": os.environ.get("ACCEL"),
                    "FAKE_QEMU_LOG": os.environ.get("FAKE_QEMU_LOG")}
        self.addCleanup(self.restore_env)
        os.environ["FAKE_QEMU_LOG"] = self.log
        os.environ.pop("ACCEL", None)
        self.bound = dict(L.CANARY_BOUND_S)
        self.addCleanup(L.CANARY_BOUND_S.update, self.bound)

    def restore_env(self):
        for k, v in self.env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    def fake(self, kvm, tcg, cell="fail"):
        path = os.path.join(self.dir, "fake-qemu")
        with open(path, "w", encoding="utf-8") as f:
            f.write(FAKE % {"behaviour": {"kvm": kvm, "tcg": tcg}, "cell": cell})
        os.chmod(path, 0o755)
        os.environ["QEMU"] = path
        return path

    def calls(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log, encoding="utf-8") as f:
            return [json.loads(line) for line in f]

    def choose(self, mode=None):
        return L.choose_accelerator(self.kernel, "q35", os.path.join(self.dir, "canary"), mode)

    def test_auto_falls_back_to_tcg_naming_why_when_kvm_aborts(self):
        self.fake(kvm="abort", tcg="boot")
        c = self.choose()
        self.assertEqual(c["accelerator"], "tcg")
        self.assertIn("kvm unusable", c["reason"])
        self.assertIn("SIGABRT", c["reason"])
        self.assertIn("failed to set MSR 0x10a", c["reason"])
        self.assertEqual([a["accelerator"] for a in c["canary"]], ["kvm", "tcg"])
        self.assertIn("accelerator: tcg (kvm unusable", L.accel_line(c))

    def test_auto_falls_back_to_tcg_when_kvm_boots_nothing_within_the_bound(self):
        self.fake(kvm="hang", tcg="boot")
        L.CANARY_BOUND_S["kvm"] = 2
        c = self.choose()
        self.assertEqual(c["accelerator"], "tcg")
        self.assertIn("no init within 2 s", c["reason"])

    def test_auto_takes_kvm_when_its_canary_boots(self):
        self.fake(kvm="boot", tcg="boot")
        c = self.choose()
        self.assertEqual(c["accelerator"], "kvm")
        self.assertEqual([a["accelerator"] for a in c["canary"]], ["kvm"])

    def test_auto_is_a_setup_error_naming_both_when_neither_boots(self):
        self.fake(kvm="abort", tcg="fail")
        with self.assertRaises(L.LaunchError) as e:
            self.choose()
        self.assertIn("kvm: qemu died of SIGABRT", str(e.exception))
        self.assertIn("tcg: qemu exited 1", str(e.exception))

    def test_forced_kvm_is_a_setup_error_naming_what_the_canary_saw(self):
        self.fake(kvm="abort", tcg="boot")
        with self.assertRaises(L.LaunchError) as e:
            self.choose("kvm")
        self.assertIn("ACCEL=kvm", str(e.exception))
        self.assertIn("failed to set MSR", str(e.exception))

    def test_forced_tcg_boots_no_canary(self):
        self.fake(kvm="abort", tcg="fail")
        os.environ["ACCEL"] = "tcg"
        c = self.choose()
        self.assertEqual((c["accelerator"], c["canary"]), ("tcg", []))
        self.assertEqual(self.calls(), [])

    def test_unknown_accel_mode_is_refused_by_name(self):
        os.environ["ACCEL"] = "hvf"
        with self.assertRaises(L.LaunchError) as e:
            self.choose()
        self.assertIn("ACCEL='hvf'", str(e.exception))

    def test_canary_runs_the_qemu_named_by_QEMU_on_the_cells_command_line(self):
        fake = self.fake(kvm="boot", tcg="boot")
        self.choose()
        argv = self.calls()[0]
        cell = L.qemu_argv(self.kernel, "i", "c", "r", accel="kvm")
        self.assertEqual(cell[0], fake)
        # Everything but the files and the floor's own kernel argument is the cell's line.
        for opt in ("-machine", "-accel", "-cpu", "-m", "-smp", "-nic"):
            self.assertEqual(argv[argv.index(opt) + 1], cell[cell.index(opt) + 1], opt)
        self.assertTrue(argv[argv.index("-append") + 1].startswith(L.kernel_cmdline()))

    def run_vm_cell(self, *extra):
        cf = os.path.join(self.dir, "c.cell")
        with open(cf, "wb") as f:
            f.write(CELL)
        initrd = os.path.join(self.dir, "initrd")
        with open(initrd, "wb") as f:
            f.write(b"initrd")
        out = os.path.join(self.dir, "out")
        res = subprocess.run([os.path.join(TOP, "run-vm.sh"), "cell", "--kernel", self.kernel,
                              "--initrd", initrd, "--cell-file", cf, "--out", out] + list(extra),
                             capture_output=True, text=True, check=False, env=os.environ)
        cell = None
        if os.path.exists(os.path.join(out, "cell.json")):
            with open(os.path.join(out, "cell.json"), encoding="utf-8") as f:
                cell = json.load(f)
        return res, cell

    def test_run_vm_cell_exits_2_when_accel_kvm_cannot_boot(self):
        self.fake(kvm="abort", tcg="boot")
        os.environ["ACCEL"] = "kvm"
        res, cell = self.run_vm_cell()
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("ACCEL=kvm but KVM cannot boot a guest here", res.stderr)
        self.assertIsNone(cell)

    def test_run_vm_cell_records_the_accelerator_and_why(self):
        self.fake(kvm="abort", tcg="boot", cell="fail")
        res, cell = self.run_vm_cell()
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(cell["accelerator"], "tcg")
        self.assertIn("kvm unusable", cell["accelerator_reason"])

    def test_cell_that_does_not_boot_under_a_proven_kvm_is_an_infra_error_naming_kvm(self):
        self.fake(kvm="boot", tcg="boot", cell="fail")
        res, cell = self.run_vm_cell()
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(cell["outcome"], "infra-error")
        self.assertIn("under KVM", cell["reason"])
        # Never retried under TCG: one canary and one cell boot, both KVM.
        boots = [a for a in self.calls() if a != ["--version"]]
        self.assertEqual([a[a.index("-accel") + 1] for a in boots], ["kvm", "kvm"])

    def test_a_caller_proven_accelerator_boots_no_canary(self):
        self.fake(kvm="abort", tcg="boot", cell="fail")
        res, cell = self.run_vm_cell("--accel", "tcg", "--accel-reason", "proven by the run")
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(cell["accelerator_reason"], "proven by the run")
        boots = [a for a in self.calls() if a != ["--version"]]
        self.assertEqual(len(boots), 1)


class Timeouts(unittest.TestCase):
    def test_kvm_halves_a_tcg_deadline_but_not_below_the_minimum(self):
        self.assertEqual(L.scaled_timeout("tcg", 60), 60)
        self.assertEqual(L.scaled_timeout("kvm", 60), 30)
        self.assertEqual(L.scaled_timeout("kvm", 30), L.MIN_TIMEOUT_S)
        self.assertEqual(L.scaled_timeout("kvm", 10), 10)

    def test_guest_deadline_leaves_the_boot_margin(self):
        self.assertEqual(L.guest_deadline(60), 40)
        self.assertEqual(L.guest_deadline(30), 15)


if __name__ == "__main__":
    unittest.main(verbosity=2)
