#!/usr/bin/env python3
"""A cell file as the host reads it (docs/guest.md, "Cell file"): its keys,
its id and its deadline. Host-side it is lenient: the guest rejects unknown
keys. Read by the cell path (cell_result.py, cell_run.py, batch_run.py) and
the oracle. Stdlib only."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from contract import CELL_ID_CHARS, CELL_ID_RE, DEFAULT_TIMEOUT  # noqa: E402


def parse_cell_text(data):
    """Cell file bytes -> ({key: first value}, {key: [values]}). Host-side it
    is lenient: the guest rejects unknown keys."""
    single, multi = {}, {}
    for line in data.decode("utf-8", "replace").split("\n"):
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, val = line.split("=", 1)
        multi.setdefault(key, []).append(val)
        single.setdefault(key, val)
    return single, multi


def read_cell_file(path):
    """The cell file as {key: value} for single keys and {key: [values]} for
    repeated ones."""
    with open(path, "rb") as f:
        return parse_cell_text(f.read())


def cell_info(path):
    """(cell id, timeout seconds) of a cell file; ValueError naming the key."""
    single, _ = read_cell_file(path)
    cell = single.get("cell", "")
    if not CELL_ID_RE.match(cell):
        raise ValueError(f"cell={cell!r}: want an id of [{CELL_ID_CHARS}]")
    timeout = single.get("timeout", str(DEFAULT_TIMEOUT))
    if not timeout.isdigit() or int(timeout) == 0:
        raise ValueError(f"timeout={timeout!r}: want whole seconds > 0")
    return cell, int(timeout)
