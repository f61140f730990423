{
  "format": "egress-hostprofile/1",
  "captured_utc": null,
  "arch": "x86_64",
  "derived": {
    "captured": false,
    "what": "a CI job in a process that already carries a seccomp filter with a notification listener (WSL's init, a container runtime's listener, or another notify-based sandbox around the job)",
    "sources": {
      "probes.*.listener": "a second listener in one filter chain is refused with EBUSY at filter load (kernel-facts.md; kernel/seccomp.c, has_duplicate_listener)",
      "seccomp": "the enclosing sandbox's filter: mode 2, at least one filter",
      "yama_ptrace_scope": "WSL2's kernel configuration has no Yama (CONFIG_SECURITY_YAMA is not set in microsoft/WSL2-Linux-Kernel's config-wsl)"
    }
  },
  "kernel": {
    "release": "6.6.36.3-microsoft-standard-WSL2",
    "version": null,
    "machine": "x86_64",
    "config": {
      "source": "unknown",
      "options": null
    }
  },
  "lsm": null,
  "yama_ptrace_scope": null,
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
    "bounding": "000001ffffffffff",
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
      "init": true
    },
    "mnt": {
      "inode": null,
      "init": true
    },
    "net": {
      "inode": null,
      "init": true
    },
    "cgroup": {
      "inode": null,
      "init": true
    },
    "ipc": {
      "inode": null,
      "init": true
    },
    "uts": {
      "inode": null,
      "init": true
    }
  },
  "container_hints": [],
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
      "listener": "EBUSY",
      "process_vm_readv": "ok",
      "proc_mem": "ok",
      "pidfd_open": "ok",
      "pidfd_getfd": "ok",
      "id_valid": null
    },
    "child_nodump": {
      "start": "ok",
      "listener": "EBUSY",
      "process_vm_readv": "EPERM",
      "proc_mem": "EACCES",
      "pidfd_open": "ok",
      "pidfd_getfd": "EPERM",
      "id_valid": null
    },
    "reparented_grandchild": {
      "start": "ok",
      "reparented": "ok",
      "listener": "EBUSY",
      "process_vm_readv": "ok",
      "proc_mem": "ok",
      "pidfd_open": "ok",
      "pidfd_getfd": "ok",
      "id_valid": null
    },
    "io_uring_setup": "ok",
    "userns": "ok"
  }
}
