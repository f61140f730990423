{
  "format": "egress-hostprofile/1",
  "captured_utc": null,
  "arch": "x86_64",
  "derived": {
    "captured": false,
    "what": "a CI job as root of a rootless Podman container: uid 0 inside a user namespace mapped to an unprivileged host user",
    "sources": {
      "namespaces.user": "rootless Podman runs the container in a user namespace of the invoking user (podman(1), 'Rootless mode'): not init's",
      "capabilities": "uid 0 of the container's user namespace holds capabilities only inside it",
      "probes.*": "the container's root owns the container's user namespace and its processes: every mechanism works against its own children",
      "container_hints": "Podman creates /run/.containerenv"
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
    "permitted": "000001ffffffffff",
    "effective": "000001ffffffffff",
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
      "init": false
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
    "/run/.containerenv"
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
      "listener": "ok",
      "process_vm_readv": "ok",
      "proc_mem": "ok",
      "pidfd_open": "ok",
      "pidfd_getfd": "ok",
      "id_valid": "ok"
    },
    "child_nodump": {
      "start": "ok",
      "listener": "ok",
      "process_vm_readv": "ok",
      "proc_mem": "ok",
      "pidfd_open": "ok",
      "pidfd_getfd": "ok",
      "id_valid": "ok"
    },
    "reparented_grandchild": {
      "start": "ok",
      "reparented": "ok",
      "listener": "ok",
      "process_vm_readv": "ok",
      "proc_mem": "ok",
      "pidfd_open": "ok",
      "pidfd_getfd": "ok",
      "id_valid": "ok"
    },
    "io_uring_setup": "EPERM",
    "userns": "ok"
  }
}
