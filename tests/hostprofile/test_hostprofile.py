#!/usr/bin/env python3
"""egress-hostprofile on this machine: the profile's shape, and every probe
answer checked against what the kernel's access rules predict for the
credentials and Yama setting the same profile reports
(shared/reference/kernel-facts.md, "Who may read or act on whom"): as root,
as uid 1000 (no capabilities), and under a container-style seccomp mask
(pidfd_getfd and process_vm_readv answered EPERM), and under masks that
refuse unshare (Docker's default profile without CAP_SYS_ADMIN), where the
listener is handed over with pidfd_getfd as the supervisor's is.

    HP_BIN=build/egress-hostprofile python3 tests/hostprofile/test_hostprofile.py
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HP_BIN = os.environ.get("HP_BIN") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "egress-hostprofile")
CAP_SYS_PTRACE = 19
PROBES = ("listener", "process_vm_readv", "proc_mem", "pidfd_open", "pidfd_getfd", "id_valid")
ACCESS_CHECKED = ("process_vm_readv", "proc_mem", "pidfd_getfd")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seccomp_mask import NR_PIDFD_GETFD, NR_UNSHARE, container_mask  # noqa: E402


def profile(argv_prefix=(), preexec=None):
    res = subprocess.run(list(argv_prefix) + [HP_BIN], capture_output=True, text=True,
                         check=False, preexec_fn=preexec, timeout=60)
    if res.returncode != 0:
        raise AssertionError(f"egress-hostprofile exited {res.returncode}: {res.stderr}")
    return json.loads(res.stdout)


def expected(p, target, call):
    """The answer the access rules predict for this profile's own caller
    (capabilities and Yama as it reports them)."""
    cap = int(p["capabilities"]["effective"], 16) >> CAP_SYS_PTRACE & 1
    scope = p["yama_ptrace_scope"]
    refused = "EACCES" if call == "proc_mem" else "EPERM"
    if call not in ACCESS_CHECKED:
        return "ok"
    if scope == 3:
        return refused
    if target == "child_nodump" and not cap:
        return refused
    if scope == 2 and not cap:
        return refused
    if scope == 1 and target == "reparented_grandchild" and not cap:
        return refused
    return "ok"


def expected_listener(p, handover, masked):
    """The listener's answer: installed in the shared table needs no access;
    handed over with pidfd_getfd it needs what pidfd_getfd needs against a
    dumpable child of ours (the hand-over comes before the target becomes
    non-dumpable or re-parented, as the supervisor's from its own child)."""
    if handover == "shared-table":
        return "ok"
    return "EPERM" if "pidfd_getfd" in masked else expected(p, "child", "pidfd_getfd")


class Profile(unittest.TestCase):
    def check_probes(self, p, masked=(), handover="shared-table"):
        for target in ("child", "child_nodump", "reparented_grandchild"):
            got = p["probes"][target]
            self.assertEqual(got["start"], "ok", target)
            self.assertEqual(got["handover"], handover, target)
            listener = expected_listener(p, handover, masked)
            for call in PROBES:
                if call == "listener":
                    want = listener
                elif call == "id_valid":
                    # Asked only of a notification that arrived.
                    want = "ok" if listener == "ok" else None
                else:
                    want = "EPERM" if call in masked else expected(p, target, call)
                self.assertEqual(got[call], want, f"{target} {call}: {got}")
        self.assertEqual(p["probes"]["reparented_grandchild"]["reparented"], "ok")

    def test_profile_has_the_schema_fields(self):
        p = profile()
        self.assertEqual(p["format"], "egress-hostprofile/1")
        self.assertEqual(p["arch"], "x86_64")
        self.assertEqual(p["kernel"]["release"], os.uname().release)
        self.assertIn(p["kernel"]["config"]["source"],
                      ("/proc/config.gz", f"/boot/config-{os.uname().release}", "unknown"))
        for key in ("lsm", "yama_ptrace_scope", "sysctls", "ids", "capabilities", "securebits",
                    "no_new_privs", "dumpable", "seccomp", "namespaces", "container_hints",
                    "cgroup", "probes"):
            self.assertIn(key, p)
        self.assertEqual(p["ids"]["uid"], [os.getuid()] * 4)
        for call in ("io_uring_setup", "userns"):
            self.assertIn(call, p["probes"])

    def test_root_probes_follow_the_access_rules(self):
        self.check_probes(profile())

    def test_unprivileged_user_probes_follow_the_access_rules(self):
        p = profile(["setpriv", "--reuid=1000", "--regid=1000", "--clear-groups"])
        self.assertEqual(p["ids"]["uid"], [1000] * 4)
        self.assertEqual(p["capabilities"]["effective"], "0000000000000000")
        # Without CAP_SYS_PTRACE a non-dumpable child is never readable.
        self.assertEqual(p["probes"]["child_nodump"]["process_vm_readv"], "EPERM")
        self.check_probes(p)

    def test_container_mask_shows_as_eperm_and_a_filter(self):
        p = profile(preexec=container_mask)
        self.assertEqual(p["seccomp"]["mode"], 2)
        if p["seccomp"]["filters"] is not None:
            self.assertGreaterEqual(p["seccomp"]["filters"], 1)
        self.assertEqual(p["no_new_privs"], 1)
        self.check_probes(p, masked=("process_vm_readv", "pidfd_getfd"))

    def test_refused_unshare_hands_the_listener_over_with_pidfd_getfd(self):
        # Docker's default profile refuses unshare without CAP_SYS_ADMIN:
        # as the supervisor's spawn, each target is started again with a
        # table of its own and its listener taken with pidfd_getfd; the
        # start is ok and every answer follows the access rules.
        p = profile(preexec=lambda: container_mask((NR_UNSHARE,)))
        self.check_probes(p, handover="pidfd_getfd")
        self.assertEqual(p["probes"]["userns"], "EPERM")

    def test_unprivileged_user_under_refused_unshare_hands_over_before_the_target_is_nodump(self):
        # The hand-over comes while the target is dumpable: the listener
        # is ok for the non-dumpable child, which uid 1000 cannot read.
        p = profile(["setpriv", "--reuid=1000", "--regid=1000", "--clear-groups"],
                    preexec=lambda: container_mask((NR_UNSHARE,)))
        self.assertEqual(p["probes"]["child_nodump"]["process_vm_readv"], "EPERM")
        self.check_probes(p, handover="pidfd_getfd")

    def test_refused_unshare_and_pidfd_getfd_leave_no_listener(self):
        # Docker's default without CAP_SYS_PTRACE and CAP_SYS_ADMIN: the
        # hand-over's pidfd_getfd is refused, so the listener is its errno,
        # no notification is received, and the rest is still answered.
        p = profile(preexec=lambda: container_mask((NR_UNSHARE, NR_PIDFD_GETFD)))
        self.check_probes(p, masked=("pidfd_getfd",), handover="pidfd_getfd")
        for t in H.TARGETS:
            self.assertEqual(p["probes"][t]["listener"], "EPERM", t)
            self.assertIsNone(p["probes"][t]["id_valid"], t)

    def test_bad_invocation_exits_2(self):
        res = subprocess.run([HP_BIN, "--bogus"], capture_output=True, text=True, check=False)
        self.assertEqual(res.returncode, 2)
        self.assertIn("usage", res.stderr)

    def test_unwritable_output_exits_3_and_leaves_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "missing-dir", "p.json")
            res = subprocess.run([HP_BIN, "--output", out], capture_output=True, text=True,
                                 check=False)
            self.assertEqual(res.returncode, 3, res.stderr)
            self.assertIn("cannot create", res.stderr)
            self.assertFalse(os.path.exists(out))

    def test_output_file_is_written_whole(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "p.json")
            res = subprocess.run([HP_BIN, "--output", out], capture_output=True, text=True,
                                 check=False)
            self.assertEqual(res.returncode, 0, res.stderr)
            with open(out, encoding="utf-8") as f:
                self.assertEqual(json.load(f)["format"], "egress-hostprofile/1")
            self.assertEqual(os.listdir(d), ["p.json"])


TOP = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "scenarios", "tools"))
import hostprofile as H  # noqa: E402
import scenario as S  # noqa: E402


class Replay(unittest.TestCase):
    """What make repro does with a profile, without booting: validation with
    errors naming the field, the kernel and guest environment that stand for
    the host, the pinned scenarios, the probe comparison."""

    @classmethod
    def setUpClass(cls):
        cls.real = profile()

    def write(self, data):
        f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        self.addCleanup(os.unlink, f.name)
        f.write(data if isinstance(data, str) else json.dumps(data))
        f.close()
        return f.name

    def edited(self, **changes):
        p = json.loads(json.dumps(self.real))
        for dotted, v in changes.items():
            cur = p
            parts = dotted.split("__")
            for k in parts[:-1]:
                cur = cur[k]
            cur[parts[-1]] = v
        return p

    def refused(self, data, field):
        with self.assertRaises(H.ProfileError) as e:
            H.load(self.write(data))
        self.assertIn(field, str(e.exception))
        return str(e.exception)

    def test_a_captured_profile_loads(self):
        self.assertEqual(H.load(self.write(self.real))["format"], H.FORMAT)

    def test_unknown_schema_version_is_refused_naming_format(self):
        self.refused(self.edited(format="egress-hostprofile/9"), "field format")

    def test_truncated_profile_is_refused(self):
        self.assertIn("not JSON", self.refused(json.dumps(self.real)[:200], "not JSON"))

    def test_profile_from_another_architecture_is_refused(self):
        self.refused(self.edited(arch="aarch64"), "field arch")

    def test_effective_capabilities_outside_permitted_are_refused(self):
        self.refused(self.edited(capabilities__permitted="0000000000000000",
                                 capabilities__effective="0000000000080000"),
                     "capabilities.effective")

    def test_a_probe_answer_that_is_no_errno_is_refused(self):
        p = self.edited()
        p["probes"]["child"]["pidfd_getfd"] = "maybe"
        self.refused(p, "probes.child.pidfd_getfd")

    def test_repro_cli_exits_2_on_a_bad_profile(self):
        path = self.write(self.edited(format="nope"))
        res = subprocess.run([sys.executable, os.path.join(TOP, "scenarios", "tools", "repro.py"),
                              "--profile", path, "--plan"], capture_output=True, text=True,
                             check=False)
        self.assertEqual(res.returncode, 2)
        self.assertIn("field format", res.stderr)

    def test_same_series_and_flavour_is_chosen(self):
        p = self.edited(kernel__release="6.1.0-27-cloud-amd64")
        ks = [{"name": "debian-6.1", "release": "6.1.0-50-amd64"},
              {"name": "debian-6.1-cloud", "release": "6.1.0-50-cloud-amd64"},
              {"name": "debian-6.12", "release": "6.12.117+deb13-amd64"}]
        self.assertEqual(H.choose_kernel(p, ks)[0], "debian-6.1-cloud")
        name, why = H.choose_kernel(self.edited(kernel__release="6.13.2-arch1"), ks)
        self.assertEqual(name, "debian-6.12")
        self.assertIn("no 6.13 kernel", why)

    def test_root_without_ptrace_and_a_container_mask_map_onto_the_guest(self):
        p = self.edited(yama_ptrace_scope=1, capabilities__effective="000001fffef7ffff",
                        capabilities__permitted="000001fffef7ffff")
        p["probes"]["child"]["pidfd_getfd"] = "EPERM"
        env = H.environment(p)
        self.assertEqual((env["ptrace_scope"], env["user"]), (1, "nocap"))
        self.assertEqual(env["masks"], ["pidfd_getfd:EPERM"])

    def test_a_refusal_the_access_rules_explain_is_no_mask(self):
        p = self.edited(yama_ptrace_scope=2, capabilities__effective="0000000000000000",
                        capabilities__permitted="0000000000000000", ids__uid=[1000] * 4)
        p["probes"]["child"].update(process_vm_readv="EPERM", pidfd_getfd="EPERM",
                                    proc_mem="EACCES")
        env = H.environment(p)
        self.assertEqual((env["user"], env["masks"]), ("uid1000", []))
        self.assertIn("ptrace_scope 2 needs CAP_SYS_PTRACE", H.enforce_summary(p))

    def test_a_nested_listener_is_said_to_be_unreproducible(self):
        p = self.edited()
        p["probes"]["child"]["listener"] = "EBUSY"
        self.assertTrue(any("EBUSY" in u for u in H.environment(p)["unreproducible"]))

    def test_a_guest_probe_unlike_the_hosts_is_named(self):
        p = self.edited()
        p["probes"]["child"]["proc_mem"] = "EACCES"
        diffs = H.probe_differences(p, {"proc_mem": "ok", "pidfd_getfd": "ok"})
        self.assertEqual(diffs, ["host: proc_mem EACCES on the child; guest: ok"])

    def test_a_guest_profile_unlike_the_hosts_is_named_per_target(self):
        p = self.edited()
        g = json.loads(json.dumps(p))
        g["probes"]["child_nodump"]["pidfd_getfd"] = "EPERM"
        g["probes"]["reparented_grandchild"]["reparented"] = "ETIMEDOUT"
        g["probes"]["userns"] = "EPERM" if p["probes"]["userns"] != "EPERM" else "ok"
        diffs = H.guest_profile_differences(p, json.dumps(g).encode())
        self.assertEqual(len(diffs), 3, diffs)
        self.assertIn(f"host: pidfd_getfd {p['probes']['child_nodump']['pidfd_getfd']} on the "
                      f"child_nodump; guest: EPERM", diffs)
        self.assertTrue(any(d.startswith("host: reparented ") and "reparented_grandchild" in d
                            for d in diffs), diffs)
        self.assertEqual(H.guest_profile_differences(p, json.dumps(p).encode()), [])

    def test_a_replay_without_a_guest_profile_is_never_believed(self):
        p = self.edited()
        self.assertIn("no profile of its own", H.replay_differences(p, None, None)[0])
        self.assertIn("not JSON", H.guest_profile_differences(p, b"{")[0])

    def test_a_root_host_refusing_user_namespaces_maps_onto_an_unshare_mask(self):
        p = self.edited(yama_ptrace_scope=0)
        p["probes"]["userns"] = "EPERM"
        p["probes"]["io_uring_setup"] = "EPERM"
        env = H.environment(p)
        self.assertIn("unshare:EPERM", env["masks"])
        self.assertIn("io_uring_setup:EPERM", env["masks"])
        # An unshare mask alone is survivable: the listener is handed over
        # with pidfd_getfd, so the scenario's own derivations stand.
        text, _ = H.host_scenario_text(self.scenario("starter-undeclared"), env)
        self.assertIn("mask = unshare:EPERM\n", text)
        self.assertNotIn("when kernel=* -> capability-error", text)

    def test_a_user_whose_listener_was_handed_over_maps_onto_an_unshare_mask(self):
        # uid 1000 refused a user namespace where unshare(CLONE_FILES) was
        # refused too: only a seccomp filter does that.
        p = self.edited(yama_ptrace_scope=0, ids__uid=[1000] * 4,
                        capabilities__effective="0000000000000000",
                        capabilities__permitted="0000000000000000")
        p["probes"]["userns"] = "EPERM"
        p["probes"]["child"]["handover"] = "pidfd_getfd"
        env = H.environment(p)
        self.assertEqual((env["user"], env["masks"]), ("uid1000", ["unshare:EPERM"]))
        self.assertIn("can enforce", H.enforce_summary(p))

    def test_a_refused_unshare_is_no_reason_by_itself_but_a_failed_handover_is(self):
        p = self.edited(yama_ptrace_scope=0)
        for t in H.TARGETS:
            p["probes"][t]["handover"] = "pidfd_getfd"
        self.assertIn("can enforce", H.enforce_summary(p))
        p["probes"]["child"].update(listener="EPERM", pidfd_getfd="EPERM", id_valid=None)
        summary = H.enforce_summary(p)
        self.assertIn("cannot enforce", summary)
        self.assertIn("listener could not be handed over (EPERM)", summary)
        self.assertIn("CAP_SYS_PTRACE, or allow pidfd_getfd", summary)

    def test_a_profile_without_handover_loads_and_is_compared_without_it(self):
        p = self.edited()
        for t in H.TARGETS:
            p["probes"][t].pop("handover", None)
        self.assertNotIn("handover", H.load(self.write(p))["probes"]["child"])
        g = json.loads(json.dumps(self.real))
        g["probes"]["child"]["handover"] = "pidfd_getfd"
        self.assertEqual(H.guest_profile_differences(p, json.dumps(g).encode()), [])
        self.assertEqual(H.guest_profile_differences(self.real, json.dumps(g).encode()),
                         [f"host: handover {self.real['probes']['child']['handover']} on the "
                          f"child; guest: pidfd_getfd"])
        p["probes"]["child"]["handover"] = "by-magic"
        self.refused(p, "probes.child.handover")

    def test_a_root_host_without_cap_sys_admin_is_refused_by_derivation_or_not_replayed(self):
        # The guest's root keeps CAP_SYS_ADMIN: a refusal the masks already
        # cause is derived with the missing pid namespace named beside it;
        # without such a mask the guest could not stand for the host.
        p = self.edited(yama_ptrace_scope=0, capabilities__effective="00000000a80425fb",
                        capabilities__permitted="00000000a80425fb")
        env = H.environment(p)
        self.assertTrue(any("CAP_SYS_ADMIN" in u for u in env["unreproducible"]), env)
        p["probes"]["child"]["pidfd_getfd"] = "EPERM"
        env = H.environment(p)
        self.assertEqual(env["unreproducible"], [])
        text, _ = H.host_scenario_text(self.scenario("starter-declared"), env)
        self.assertIn("pidfd_getfd:EPERM, a mechanism the supervisor's probe proves", text)
        self.assertIn("without CAP_SYS_ADMIN cannot give a root agent a pid namespace", text)

    def test_a_root_host_with_cap_sys_admin_but_without_cap_mknod_cannot_contain_a_root_agent(self):
        # A root agent's /dev of its own is made with mknod: without
        # CAP_MKNOD the canary's containment fails as without CAP_SYS_ADMIN.
        caps = "%08x" % ((0xa80425fb | 1 << H.CAP_SYS_ADMIN) & ~(1 << H.CAP_MKNOD))
        p = self.edited(yama_ptrace_scope=0, capabilities__effective=caps,
                        capabilities__permitted=caps)
        env = H.environment(p)
        self.assertTrue(any("CAP_MKNOD" in u for u in env["unreproducible"]), env)
        self.assertTrue(H.root_can_contain(0xa80425fb | 1 << H.CAP_SYS_ADMIN))

    def test_the_docker_profiles_replay_as_derived(self):
        hosts = os.path.join(TOP, "scenarios", "hosts")
        p = H.load(os.path.join(hosts, "docker-default.profile"))
        env = H.environment(p)
        self.assertEqual((env["user"], sorted(env["masks"])),
                         ("nocap", ["io_uring_setup:EPERM", "pidfd_getfd:EPERM", "unshare:EPERM"]))
        sc = self.scenario("starter-declared")
        text, _ = H.host_scenario_text(sc, env)
        self.assertIn("when kernel=* -> capability-error", text)
        p = H.load(os.path.join(hosts, "docker-ptrace-user.profile"))
        env = H.environment(p)
        self.assertEqual((env["user"], env["ptrace_scope"], sorted(env["masks"])),
                         ("uid1000", 0, ["io_uring_setup:EPERM", "unshare:EPERM"]))
        text, _ = H.host_scenario_text(sc, env)
        self.assertNotIn("when kernel=* -> capability-error", text)
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "host-starter-declared.scenario"), "w") as f:
                f.write(text)
            pinned = S.load([d], S.live_kernels(TOP))[0]
            cells = pinned.cells()
            self.assertEqual(pinned.resolve("debian-6.1", cells[0][1]).verdict, "pass")

    def test_a_host_without_user_namespaces_maps_onto_its_sysctl(self):
        # user.max_user_namespaces=0 answers ENOSPC; the replay sets it, so a
        # uid-1000 supervisor contains its agent in the guest as on the host.
        p = self.edited(yama_ptrace_scope=0)
        p["probes"]["userns"] = "ENOSPC"
        p.setdefault("sysctls", {})["user.max_user_namespaces"] = 0
        env = H.environment(p)
        self.assertIn("user.max_user_namespaces=0", env["sysctls"])
        self.assertNotIn("unshare:ENOSPC", env["masks"])
        p["probes"]["userns"] = "EPERM"
        p["sysctls"]["kernel.unprivileged_userns_clone"] = None
        p["sysctls"]["user.max_user_namespaces"] = 100
        env = H.environment(p)
        self.assertEqual(env["sysctls"], [])

    def test_a_replay_scenario_writes_the_guest_profile_before_the_supervisor(self):
        env = {"ptrace_scope": 0, "user": "root", "masks": [], "sysctls": []}
        text, _ = H.host_scenario_text(self.scenario("starter-declared"), env)
        self.assertIn(f"launcher = {H.PROFILE_LAUNCHER}\n", text)
        self.assertIn("guest_profile = yes\n", text)
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "host-starter-declared.scenario"), "w") as f:
                f.write(text)
            sc = S.load([d], S.live_kernels(TOP))[0]
            _, cell = S.compile_cell(sc, sc.cells()[0][1], "debian-6.1")
            self.assertIn("guest_profile=yes\n", cell)
            self.assertIn(f"launcher={H.PROFILE_LAUNCHER}\n", cell)

    def test_the_hosts_config_is_read_from_config_gz(self):
        if self.real["kernel"]["config"]["source"] != "/proc/config.gz":
            self.skipTest("this host's config is not /proc/config.gz")
        opts = H.config_options(self.real)
        self.assertIn(opts.get("CONFIG_SECCOMP_FILTER"), ("y", "n"))

    def scenario(self, name):
        return next(sc for sc in S.load([os.path.join(TOP, "scenarios")],
                                       S.live_kernels(TOP))
                    if sc.name == name)

    def test_a_scenario_is_pinned_to_the_host_and_still_validates(self):
        env = {"ptrace_scope": 2, "user": "nocap", "masks": ["pidfd_getfd:EPERM"]}
        text, why = H.host_scenario_text(self.scenario("starter-undeclared"), env)
        self.assertIsNone(why)
        self.assertIn("axis ptrace_scope = 2\n", text)
        self.assertIn("mask = pidfd_getfd:EPERM\n", text)
        self.assertIn("when kernel=* -> capability-error: the host's container profile", text)
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "host-starter-undeclared.scenario"), "w") as f:
                f.write(text)
            sc = S.load([d], S.live_kernels(TOP))[0]
            cells = sc.cells()
            self.assertEqual([c for c, _ in cells],
                             ["host-starter-undeclared.ptrace_scope=2,user=nocap"])
            self.assertEqual(sc.resolve("debian-6.1", cells[0][1]).verdict, "capability-error")

    def test_committed_profiles_are_valid_and_say_where_each_setting_comes_from(self):
        import glob
        paths = sorted(glob.glob(os.path.join(TOP, "scenarios", "hosts", "*.profile")))
        self.assertGreaterEqual(len(paths), 4)
        for path in paths:
            p = H.load(path)
            d = p.get("derived")
            self.assertIsInstance(d, dict, path)
            self.assertIs(d.get("captured"), False, path)
            self.assertTrue(d.get("what") and d.get("sources"), path)

    def test_a_scenario_without_the_host_axes_is_not_replayed(self):
        env = {"ptrace_scope": 0, "user": "root", "masks": []}
        text, why = H.host_scenario_text(self.scenario("threads-load"), env)
        self.assertIsNone(text)
        self.assertIn("fixed", why)


if __name__ == "__main__":
    prog = unittest.main(exit=False, verbosity=2)
    failed = len(prog.result.failures) + len(prog.result.errors)
    print(f"{prog.result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
