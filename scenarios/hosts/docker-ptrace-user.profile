{
  "format": "egress-hostprofile/1",
  "captured_utc": null,
  "arch": "x86_64",
  "derived": {
    "captured": false,
    "what": "a CI job as uid 1000 (docker run --user 1000:1000 --cap-add SYS_PTRACE) in a Docker container with the default seccomp profile, on a Debian 12 host",
    "sources": {
      "kernel.release": "a Debian 12 host (bookworm's 6.1 kernel)",
      "yama_ptrace_scope": "Debian's kernels boot Yama at ptrace_scope 0 (measured in this appliance's guests)",
      "ids": "docker run --user 1000:1000: uid and gid 1000 (real, effective, saved, filesystem), no supplementary groups",
      "capabilities": "the container's set is Docker's default (0xa80425fb, see docker-default.profile) plus CAP_SYS_PTRACE (bit 19) = 0xa80c25fb; runc gives it to the process, whose exec as uid 1000 without file capabilities keeps it in the bounding set only (capabilities(7), 'Transformation of capabilities during execve'): permitted and effective empty; inheritable empty since Docker 20.10.14 (CVE-2022-24769); no ambient set",
      "seccomp": "Docker applies its default seccomp profile (one filter, mode 2) unless --security-opt seccomp=unconfined",
      "probes.*.start, probes.*.handover": "moby's default profile (profiles/seccomp/default.json) allows unshare only with CAP_SYS_ADMIN, which --cap-add SYS_PTRACE does not add: the target's unshare(CLONE_FILES) is EPERM; egress-hostprofile starts it again with a table of its own from the clone (clone without namespace flags is allowed), as the supervisor's spawn does (docs/design.md, 'Handing the listener over'): start ok, handover pidfd_getfd",
      "probes.*.pidfd_getfd, probes.*.listener, probes.*.id_valid": "the profile's rule for kcmp, pidfd_getfd, process_madvise, process_vm_readv, process_vm_writev and ptrace has includes.caps CAP_SYS_PTRACE, which moby evaluates against the container's bounding set (profiles/seccomp/seccomp_linux.go), so with --cap-add SYS_PTRACE it is in the filter whatever the user; then the kernel's access rules decide (shared/reference/kernel-facts.md) for a caller with no effective capability: the listener is taken from a dumpable child with the same credentials under Yama 0 before the target becomes non-dumpable or re-parented: ok for every target, and a notification arrives: id_valid ok; the target's socket: ok from the dumpable child and re-parented grandchild, EPERM from the non-dumpable child (that needs CAP_SYS_PTRACE in the effective set)",
      "probes.*.process_vm_readv": "allowed by the profile (the CAP_SYS_PTRACE rule, and the minKernel 4.8 rule): same credentials, dumpable, Yama 0: ok; the non-dumpable child: EPERM (no effective CAP_SYS_PTRACE)",
      "probes.*.proc_mem": "a path, not a filtered call: same uid, dumpable, Yama 0: ok; the non-dumpable child: EACCES",
      "probes.*.pidfd_open": "pidfd_open is in the default profile's unconditional allow list; a process in the caller's own pid namespace: ok",
      "probes.reparented_grandchild.reparented": "its parent exits after the hand-over; it is re-parented to the container's init (pid 1 of its pid namespace) or the nearest subreaper: ok",
      "probes.io_uring_setup": "moby's default profile denies io_uring_setup, io_uring_enter and io_uring_register since Docker 25 (EPERM)",
      "probes.userns": "moby's default profile allows unshare only with CAP_SYS_ADMIN, whatever the flags: unshare(CLONE_NEWUSER) is EPERM for uid 1000 too",
      "namespaces": "a container: its own pid, mount, network, cgroup, ipc and uts namespaces, init's user namespace (no userns-remap)"
    }
  },
  "kernel": {
    "release": "6.1.0-27-amd64",
    "version": null,
    "machine": "x86_64",
    "config": {
      "source": "unknown",
      "options": null
    }
  },
  "lsm": null,
  "yama_ptrace_scope": 0,
  "sysctls": {
    "kernel.io_uring_disabled": null,
    "kernel.unprivileged_userns_clone": null,
    "user.max_user_namespaces": null,
    "kernel.apparmor_restrict_unprivileged_userns": null,
    "kernel.unprivileged_bpf_disabled": null
  },
  "ids": {
    "uid": [
      1000,
      1000,
      1000,
      1000
    ],
    "gid": [
      1000,
      1000,
      1000,
      1000
    ],
    "groups": []
  },
  "capabilities": {
    "inheritable": "0000000000000000",
    "permitted": "0000000000000000",
    "effective": "0000000000000000",
    "bounding": "00000000a80c25fb",
    "ambient": "0000000000000000"
  },
  "securebits": 0,
  "no_new_privs": 0,
  "dumpable": 1,
  "seccomp": {
    "mode": 2,
    "filters": 1
  },
  "namespaces": {
    "user": {
      "inode": null,
      "init": true
    },
    "pid": {
      "inode": null,
      "init": false
    },
    "mnt": {
      "inode": null,
      "init": false
    },
    "net": {
      "inode": null,
      "init": false
    },
    "cgroup": {
      "inode": null,
      "init": false
    },
    "ipc": {
      "inode": null,
      "init": false
    },
    "uts": {
      "inode": null,
      "init": false
    }
  },
  "container_hints": [
    "/.dockerenv"
  ],
  "cgroup": {
    "version": "2",
    "proc_self_cgroup": [
      "0::/"
    ],
    "cgroup2_mounted_at_sys_fs_cgroup": true
  },
  "probes": {
    "child": {
      "start": "ok",
      "handover": "pidfd_getfd",
      "listener": "ok",
      "process_vm_readv": "ok",
      "proc_mem": "ok",
      "pidfd_open": "ok",
      "pidfd_getfd": "ok",
      "id_valid": "ok"
    },
    "child_nodump": {
      "start": "ok",
      "handover": "pidfd_getfd",
      "listener": "ok",
      "process_vm_readv": "EPERM",
      "proc_mem": "EACCES",
      "pidfd_open": "ok",
      "pidfd_getfd": "EPERM",
      "id_valid": "ok"
    },
    "reparented_grandchild": {
      "start": "ok",
      "handover": "pidfd_getfd",
      "reparented": "ok",
      "listener": "ok",
      "process_vm_readv": "ok",
      "proc_mem": "ok",
      "pidfd_open": "ok",
      "pidfd_getfd": "ok",
      "id_valid": "ok"
    },
    "io_uring_setup": "EPERM",
    "userns": "EPERM"
  }
}
