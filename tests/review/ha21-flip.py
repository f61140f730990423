# ha21-flip.py (hostile review h-attack21, held): the agent flips a symbolic
# link in its writable path between its own socket and a host socket while
# connecting through it; the judgment opens the object and the act connects
# to /proc/self/fd/N of it, so no connect reaches the host socket.
import os, socket, sys, threading, time
w, host = sys.argv[1], sys.argv[2]
own = os.path.join(w, "own.sock"); link = os.path.join(w, "link"); tmp = os.path.join(w, "link.tmp")
ls = socket.socket(socket.AF_UNIX); ls.bind(own); ls.listen(512)
stop = False
def flip():
    i = 0
    while not stop:
        try: os.unlink(tmp)
        except FileNotFoundError: pass
        os.symlink(own if i % 2 else host, tmp); os.rename(tmp, link); i += 1
threading.Thread(target=flip, daemon=True).start()
ok = denied = other = 0
t = time.time() + float(sys.argv[3])
while time.time() < t:
    c = socket.socket(socket.AF_UNIX)
    try:
        c.connect(link); ok += 1; ls.accept()[0].close()
    except PermissionError: denied += 1
    except OSError: other += 1
    c.close()
stop = True
print("agent: connects through the flipping link: %d to its own socket, %d denied, %d other" % (ok, denied, other))
