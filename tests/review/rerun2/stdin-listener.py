#!/usr/bin/env python3
"""Put a TCP listener bound to the wildcard on stdin, then exec the rest."""
import os, socket, sys
l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); l.bind(("0.0.0.0", 7009)); l.listen(5)
os.dup2(l.fileno(), 0); os.execvp(sys.argv[1], sys.argv[1:])
