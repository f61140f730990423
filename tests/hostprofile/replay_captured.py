#!/usr/bin/env python3
"""Issue 16's replay check, on this machine: egress-hostprofile captures the
profile of this host as root, as uid 1000, under a container-style mask
(pidfd_getfd and process_vm_readv EPERM) and under an unshare mask (the
listener handed over with pidfd_getfd, as in Docker's default profile
without CAP_SYS_ADMIN), and `make repro` replays each in the appliance. A cell
counts as passed only when it is ok: the guest's own profile answered as the
host's did for every target (child, non-dumpable child, re-parented
grandchild) and the verdict is the derived one. One scenario per profile,
to keep `make test` short (make repro PROFILE=... runs them all).

    HP_BIN=... python3 tests/hostprofile/replay_captured.py

Prints `N passed, N failed` last. Needs root (it captures as uid 1000 with
setpriv) and the appliance's set-up (make repro builds what it needs).
"""

import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_hostprofile as T  # noqa: E402

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
REPRO = os.path.join(TOP, "scenarios", "tools", "repro.py")
SCENARIO = "starter-undeclared"


def capture(path, argv_prefix=(), preexec=None):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(T.profile(argv_prefix, preexec), f)


def main():
    if os.geteuid() != 0:
        print("replay_captured: needs root (captures as uid 1000 too)")
        print("0 passed, 1 failed")
        return 1
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="egress-replay-") as d:
        hosts = {
            "root": {},
            "uid1000": {"argv_prefix": ["setpriv", "--reuid=1000", "--regid=1000",
                                        "--clear-groups"]},
            "container-mask": {"preexec": T.container_mask},
            # unshare refused: the listener handed over with pidfd_getfd,
            # in the guest's profile as in the host's
            "unshare-mask": {"preexec": lambda: T.container_mask((T.NR_UNSHARE,))},
        }
        # Captured one after another (each is the host's own answer), then
        # replayed two at a time: a replay is mostly its matrix run's own
        # set-up and one small boot, which the other overlaps.
        for name, how in hosts.items():
            capture(os.path.join(d, f"{name}.json"), **how)

        def replay(name):
            run_id = f"replay-{name}-{os.getpid()}"
            res = subprocess.run([sys.executable, REPRO, "--profile",
                                  os.path.join(d, f"{name}.json"), "--scenarios", SCENARIO,
                                  "--run-id", run_id, "--results", os.path.join(d, "results")],
                                 capture_output=True, text=True, check=False,
                                 # the boot floor only scales the run's wall
                                 # ratio: not measured (two boots a run)
                                 env=dict(os.environ, FLOOR="3"))
            out = os.path.join(d, "results", run_id, "repro.json")
            cells = []
            if os.path.exists(out):
                with open(out, encoding="utf-8") as f:
                    cells = json.load(f)["cells"]
            return res, cells

        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            done = list(zip(hosts, pool.map(replay, hosts)))
        for name, (res, cells) in done:
            ok = res.returncode == 0 and cells and all(c["outcome"] == "ok" for c in cells)
            if ok:
                passed += 1
                print(f"ok {name}: {'; '.join(c['cell'] + ' ' + str(c['got']) for c in cells)}")
            else:
                failed += 1
                print(f"not ok {name}: repro exit {res.returncode}")
                for c in cells:
                    print(f"    {c['cell']}: {c['outcome']}: {c['reason']}")
                if not cells:
                    print("\n".join("    " + ln for ln in (res.stdout + res.stderr).splitlines()[-15:]))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
