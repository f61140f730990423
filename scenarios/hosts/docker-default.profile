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
      "probes.*.process_vm_readv, probes.*.pidfd_getfd": "moby's default seccomp profile (profiles/seccomp/default.json) allows ptrace, process_vm_readv, process_vm_writev and pidfd_getfd only with CAP_SYS_PTRACE: EPERM without it (shared/reference/kernel-facts.md) (not reached: probes.*.start is EPERM; kept as the reason the calls would be refused after it)",
      "probes.child.proc_mem": "opening /proc/PID/mem is a path, not a filtered call: same uid, dumpable child, Yama 0: allowed (not reached: probes.*.start is EPERM; kept as the reason the calls would be refused after it)",
      "probes.child_nodump.proc_mem": "a non-dumpable child needs CAP_SYS_PTRACE: EACCES (not reached: probes.*.start is EPERM; kept as the reason the calls would be refused after it)",
      "probes.io_uring_setup": "moby's default profile denies io_uring_setup, io_uring_enter and io_uring_register since Docker 25 (EPERM)",
      "probes.userns": "moby's default profile allows unshare(CLONE_NEWUSER) only with CAP_SYS_ADMIN: EPERM",
      "namespaces": "a container: its own pid, mount, network, cgroup, ipc and uts namespaces, init's user namespace (no userns-remap)",
      "probes.*.start": "moby's default profile allows unshare only with CAP_SYS_ADMIN (the rule behind probes.userns), so the target's unshare(CLONE_FILES) is EPERM too: egress-hostprofile's start answers that errno and tries nothing after it, as the supervisor's own spawn (which needs the same call) cannot start an agent there"
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
      "start": "EPERM",
      "listener": null,
      "process_vm_readv": null,
      "proc_mem": null,
      "pidfd_open": null,
      "pidfd_getfd": null,
      "id_valid": null
    },
    "child_nodump": {
      "start": "EPERM",
      "listener": null,
      "process_vm_readv": null,
      "proc_mem": null,
      "pidfd_open": null,
      "pidfd_getfd": null,
      "id_valid": null
    },
    "reparented_grandchild": {
      "start": "EPERM",
      "reparented": null,
      "listener": null,
      "process_vm_readv": null,
      "proc_mem": null,
      "pidfd_open": null,
      "pidfd_getfd": null,
      "id_valid": null
    },
    "io_uring_setup": "EPERM",
    "userns": "EPERM"
  }
}
