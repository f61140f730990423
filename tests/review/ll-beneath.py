"""ll-beneath.py PATH: mounts a fresh tmpfs BENEATH the top mount at PATH
(move_mount MOVE_MOUNT_BENEATH, Linux 6.5+): the newer mount is listed after
the one above it (ll-stack.sh). Run as root."""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
sc = libc.syscall
sc.restype = ctypes.c_long
def chk(r, what):
    if r < 0:
        e = ctypes.get_errno(); sys.exit(f"{what}: {os.strerror(e)}")
    return r
fs = chk(sc(430, b"tmpfs", 0), "fsopen")
chk(sc(431, fs, 6, None, None, 0), "fsconfig create")  # FSCONFIG_CMD_CREATE
mfd = chk(sc(432, fs, 0, 0), "fsmount")
# MOVE_MOUNT_F_EMPTY_PATH 0x4 | MOVE_MOUNT_BENEATH 0x200
chk(sc(429, mfd, b"", -100, sys.argv[1].encode(), 0x4 | 0x200), "move_mount beneath")
print("tmpfs mounted beneath", sys.argv[1])
