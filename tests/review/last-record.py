import sys, json
data = open(sys.argv[1], 'rb').read()
recs = []
i = 0
while i < len(data):
    nl = data.find(b'\n', i)
    if nl < 0: break
    hdr = data[i:nl].split()
    if len(hdr) != 3 or hdr[0] != b'egress-supervisor-report-record/1':
        print('BAD HEADER at', i, data[i:i+80]); break
    n = int(hdr[2]); body = data[nl+1:nl+1+n]
    if len(body) < n: print('short last record'); break
    recs.append((hdr[1].decode(), body)); i = nl+1+n
print('records', [k for k,_ in recs], 'trailing', len(data)-i)
k, body = recs[-1]
try:
    r = json.loads(body)
except Exception as e:
    print('JSON ERROR', e, body[:300]); sys.exit()
c = r.get('counts', {})
print('last', k, 'complete', r.get('complete'), 'verdict', r.get('verdict'), 'containment', r.get('containment'), 'reason', r.get('reason'))
print('counts', c, 'agent', r.get('agent'))
evs = r.get('events', [])
from collections import Counter
print('buckets', Counter((e.get('syscall'), e.get('dest'), e.get('bucket'), e.get('reason'), e.get('action')) for e in evs).most_common(12))
