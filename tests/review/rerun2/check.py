#!/usr/bin/env python3
"""rerun2 checker: the last whole record of a --report-fd stream, the --report
file, the exit status, and whether they agree."""
import json, sys
stream, path, code = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(stream, "rb").read()
recs, i = [], 0
while i < len(data):
    nl = data.find(b"\n", i)
    if nl < 0: break
    hdr = data[i:nl].split()
    if len(hdr) != 3 or hdr[0] != b"egress-supervisor-report-record/1": print("  stream: bad header at", i, data[i:nl][:80]); break
    n = int(hdr[2]); body = data[nl+1:nl+1+n]
    if len(body) < n: break
    recs.append((hdr[1].decode(), body)); i = nl + 1 + n
print(f"  stream: {len(recs)} record(s), kinds {[k for k,_ in recs]}, trailing {len(data)-i} bytes")
exp = {0: "pass", 1: "fail", 3: "capability-error"}.get(code)
def judge(name, body):
    try: r = json.loads(body)
    except Exception as e: print(f"  {name}: unparsable ({e})"); return
    v, comp = r.get("verdict"), r.get("complete")
    agree = (v == exp and comp) or (code == 3 and not comp and v == "capability-error") or (code not in (0,1,3) and not comp)
    print(f"  {name}: verdict={v} complete={comp} exit={code} -> {'agrees' if agree else 'DISAGREES (not believable)'}"
          f"  containment={r.get('containment')} counts={r.get('counts')}")
    for e in (r.get("events", []) if name == "report-fd" else []):
        print(f"    ev {e.get('syscall')} abi={e.get('abi')} dest={e.get('dest')} bucket={e.get('bucket')} reason={e.get('reason')} action={e.get('action')} errno={e.get('errno')} mech={e.get('mechanism')}/{e.get('mechanism_errno')}")
    if r.get("internal_error"): print("    internal_error:", r["internal_error"])
    return r
if recs: judge("report-fd", recs[-1][1])
try:
    rf = judge("report-file", open(path, "rb").read())
    if recs:
        rd = json.loads(recs[-1][1])
        print("  report-file events", "== report-fd events" if rf and rf.get("events") == rd.get("events") else "DIFFER from report-fd")
except FileNotFoundError: print("  report-file: missing")
