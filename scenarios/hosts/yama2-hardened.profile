{
  "format": "egress-hostprofile/1",
  "captured_utc": null,
  "arch": "x86_64",
  "derived": {
    "captured": false,
    "what": "a CI runner as an unprivileged user (uid 1000, no capabilities) on a hardened Debian 12 host with kernel.yama.ptrace_scope=2",
    "sources": {
      "yama_ptrace_scope": "Yama's documentation (Documentation/admin-guide/LSM/Yama.rst): 2 = admin-only attach, set by hardening guides (CIS, KSPP recommendations)",
      "ids, capabilities": "an unprivileged runner account: uid 1000, no capabilities",
      "probes.*": "Yama scope 2 requires CAP_SYS_PTRACE for attach access: process_vm_readv and pidfd_getfd EPERM, /proc/PID/mem EACCES, for every target (kernel-facts.md access table)",
      "probes.userns": "Debian 12 allows unprivileged user namespaces (kernel.unprivileged_userns_clone=1 by default since Debian 11)",
      "probes.*.handover": "no seccomp filter (mode 0) and unshare(CLONE_FILES) needs no privilege: each target unshares the table it shared with the tool: shared-table"
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
  "yama_ptrace_scope": 2,
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
    "mode": 0,
    "filters": 0
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
      "handover": "shared-table",
      "listener": "ok",
      "process_vm_readv": "EPERM",
      "proc_mem": "EACCES",
      "pidfd_open": "ok",
      "pidfd_getfd": "EPERM",
      "id_valid": "ok"
    },
    "child_nodump": {
      "start": "ok",
      "handover": "shared-table",
      "listener": "ok",
      "process_vm_readv": "EPERM",
      "proc_mem": "EACCES",
      "pidfd_open": "ok",
      "pidfd_getfd": "EPERM",
      "id_valid": "ok"
    },
    "reparented_grandchild": {
      "start": "ok",
      "handover": "shared-table",
      "reparented": "ok",
      "listener": "ok",
      "process_vm_readv": "EPERM",
      "proc_mem": "EACCES",
      "pidfd_open": "ok",
      "pidfd_getfd": "EPERM",
      "id_valid": "ok"
    },
    "io_uring_setup": "ok",
    "userns": "ok"
  }
}
