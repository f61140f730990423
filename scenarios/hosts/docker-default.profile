{
  "format": "egress-hostprofile/1",
  "captured_utc": null,
  "arch": "x86_64",
  "derived": {
    "captured": false,
    "what": "a CI job as root in a Docker container with the default seccomp profile and the default capabilities (no CAP_SYS_PTRACE), on a Debian 12 host",
    "sources": {
      "kernel.release": "a Debian 12 host (bookworm's 6.1 kernel)",
      "yama_ptrace_scope": "Debian's kernels boot Yama at ptrace_scope 0 (measured in this appliance's guests)",
      "capabilities": "Docker's default capability set (docs.docker.com, 'Runtime privilege and Linux capabilities'): CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL, SETGID, SETUID, SETPCAP, NET_BIND_SERVICE, NET_RAW, SYS_CHROOT, MKNOD, AUDIT_WRITE, SETFCAP = 0xa80425fb; no CAP_SYS_PTRACE",
      "seccomp": "Docker applies its default seccomp profile (one filter, mode 2) unless --security-opt seccomp=unconfined",
      "probes.io_uring_setup": "moby's default profile denies io_uring_setup, io_uring_enter and io_uring_register since Docker 25 (EPERM)",
      "probes.userns": "moby's default profile allows unshare(CLONE_NEWUSER) only with CAP_SYS_ADMIN: EPERM",
      "namespaces": "a container: its own pid, mount, network, cgroup, ipc and uts namespaces, init's user namespace (no userns-remap)",
      "probes.*.start, probes.*.handover": "moby's default profile (profiles/seccomp/default.json) allows unshare only with CAP_SYS_ADMIN (the rule behind probes.userns), so the target's unshare(CLONE_FILES) after it installed its filter in the shared table is EPERM; egress-hostprofile then starts it again without CLONE_FILES, a table of its own from the clone (clone without namespace flags is allowed), as the supervisor's spawn does (docs/design.md, 'Handing the listener over'): start ok, handover pidfd_getfd",
      "probes.*.pidfd_getfd, probes.*.listener, probes.*.id_valid": "moby's default profile allows kcmp, pidfd_getfd, process_madvise (and process_vm_readv, process_vm_writev, ptrace) under includes.caps CAP_SYS_PTRACE, evaluated against the container's bounding set (profiles/seccomp/seccomp_linux.go): without it pidfd_getfd is EPERM, for the target's socket and for the hand-over of its listener alike, so listener is EPERM (taken from a dumpable child of the same credentials under Yama 0, which the kernel alone would allow) and no notification is received: id_valid null",
      "probes.*.pidfd_open": "pidfd_open is in the default profile's unconditional allow list; a process in the caller's own pid namespace: ok",
      "probes.*.process_vm_readv": "moby's default profile allows process_vm_readv, process_vm_writev and ptrace to every container on kernels >= 4.8 (a rule with includes.minKernel 4.8, beside the CAP_SYS_PTRACE one), so the kernel's access rules decide (shared/reference/kernel-facts.md): root with the same credentials as a dumpable child or re-parented grandchild, Yama 0: ok; a non-dumpable child needs CAP_SYS_PTRACE: EPERM",
      "probes.*.proc_mem": "opening /proc/PID/mem is a path, not a filtered call: same uid, dumpable (the child, the re-parented grandchild), Yama 0: ok; the non-dumpable child needs CAP_SYS_PTRACE: EACCES",
      "probes.reparented_grandchild.reparented": "its parent exits after the hand-over; it is re-parented to the container's init (pid 1 of its pid namespace) or the nearest subreaper: ok"
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
      0,
      0,
      0,
      0
    ],
    "gid": [
      0,
      0,
      0,
      0
    ],
    "groups": []
  },
  "capabilities": {
    "inheritable": "0000000000000000",
    "permitted": "00000000a80425fb",
    "effective": "00000000a80425fb",
    "bounding": "00000000a80425fb",
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
      "listener": "EPERM",
      "process_vm_readv": "ok",
      "proc_mem": "ok",
      "pidfd_open": "ok",
      "pidfd_getfd": "EPERM",
      "id_valid": null
    },
    "child_nodump": {
      "start": "ok",
      "handover": "pidfd_getfd",
      "listener": "EPERM",
      "process_vm_readv": "EPERM",
      "proc_mem": "EACCES",
      "pidfd_open": "ok",
      "pidfd_getfd": "EPERM",
      "id_valid": null
    },
    "reparented_grandchild": {
      "start": "ok",
      "handover": "pidfd_getfd",
      "reparented": "ok",
      "listener": "EPERM",
      "process_vm_readv": "ok",
      "proc_mem": "ok",
      "pidfd_open": "ok",
      "pidfd_getfd": "EPERM",
      "id_valid": null
    },
    "io_uring_setup": "EPERM",
    "userns": "EPERM"
  }
}
