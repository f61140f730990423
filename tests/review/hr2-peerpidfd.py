#!/usr/bin/env python3
"""SO_PEERPIDFD of a connection the supervisor made for the agent (review h-realprog2, held).

The supervisor performs an AF_UNIX connect, so the listener's SO_PEERPIDFD
is a pidfd of the supervisor (fdinfo Pid 0: outside the agent's pid
namespace). What the agent can do with it: pidfd_send_signal (EINVAL, other
pid namespace), setns by it (denied `foreign-namespace`), PIDFD_GET_*
namespace ioctls (EPERM: the supervisor is not dumpable).
    SV --writable DIR -- /usr/bin/python3 tests/review/hr2-peerpidfd.py DIR
"""
import os, socket, ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
SO_PEERPIDFD = 77
path = os.path.join(sys.argv[1], f"s{os.getuid()}.sock")
try: os.unlink(path)
except OSError: pass
ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); ls.bind(path); ls.listen(1)
pid = os.fork()
if pid == 0:
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); c.connect(path); c.recv(1); os._exit(0)
conn, _ = ls.accept()
fd = int.from_bytes(conn.getsockopt(socket.SOL_SOCKET, SO_PEERPIDFD, 4), "little", signed=True)
print("child", pid, "peer pidfd", fd)
print(open(f"/proc/self/fdinfo/{fd}").read().strip().replace("\n", " | "))
r = libc.syscall(424, fd, 0, None, 0)  # pidfd_send_signal(fd, 0): may we signal it?
print("pidfd_send_signal(0):", r, os.strerror(ctypes.get_errno()) if r else "")
r = libc.setns(fd, 0x00020000)  # CLONE_NEWNS by pidfd
print("setns(pidfd, CLONE_NEWNS):", r, os.strerror(ctypes.get_errno()) if r else "")
conn.send(b"x"); os.waitpid(pid, 0)
names = {1: "cgroup", 2: "ipc", 3: "mnt", 4: "net", 5: "pid", 9: "user", 10: "uts"}
for n, nm in names.items():
    libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong]
    r = libc.ioctl(fd, (0xFF << 8) | n, 0)
    if r >= 0:
        print(f"PIDFD_GET_{nm}: fd {r} ->", os.readlink(f"/proc/self/fd/{r}"), "(mine:", os.readlink(f"/proc/self/ns/{nm}"), ")")
    else:
        print(f"PIDFD_GET_{nm}:", os.strerror(ctypes.get_errno()))
