// hr3-prog.js MODE HOST PORT [HOST2 PORT2]: node programs for review h-realprog3.
// Prints "OK ..." and exits 0 when the program's own work succeeded, else exits 1.
'use strict';
const net = require('net'), http = require('http'), dns = require('dns'), dgram = require('dgram');
const [mode, host, portS, host2, port2S] = process.argv.slice(2);
const port = +portS, port2 = +port2S;
const die = (e) => { console.log('ERR', mode, e && (e.code || e.message || e)); process.exit(1); };
const get = (h, p, path = '/f.txt', agent) => new Promise((res, rej) => {
  http.get({ host: h, port: p, path, agent }, (r) => { let b = ''; r.on('data', (d) => b += d); r.on('end', () => res(b)); }).on('error', rej);
});
const echo = (h, p, msg) => new Promise((res, rej) => {
  const s = net.connect(p, h, () => s.write(msg)); let b = '';
  s.on('data', (d) => { b += d; if (b.length >= msg.length) { s.end(); res(b); } }); s.on('error', rej);
});
const modes = {
  // 16 concurrent dns.lookup in libuv's thread pool (getaddrinfo on 4 threads at once), then a request.
  async 'lookup-many'() {
    const r = await Promise.all(Array.from({ length: 16 }, () => dns.promises.lookup('dual.hr3.test', { all: true })));
    const b = await get(host, port);
    return `${r.length} lookups ${r[0].length} addrs ${b.trim()}`;
  },
  // c-ares straight to the resolver (dns.resolve4), then the address it gave.
  async resolve() {
    const a = await dns.promises.resolve4('a.hr2.test');
    return `${a} ` + (await echo(host, port, 'resolve'));
  },
  // undici's pool, keep-alive: 20 requests over what should be one connection, then v6.
  async 'fetch-ka'() {
    let n = 0;
    for (let i = 0; i < 20; i++) { const r = await fetch(`http://${host}:${port}/f.txt`); await r.text(); n += r.ok; }
    return `${n} ok`;
  },
  async worker() {
    const { Worker } = require('worker_threads');
    const code = `const net=require('net');const {workerData:w,parentPort}=require('worker_threads');
      const s=net.connect(w.p,w.h,()=>s.write('w'+w.i));s.on('data',(d)=>{parentPort.postMessage(String(d));s.end();});
      s.on('error',(e)=>parentPort.postMessage('ERR '+e.code));`;
    const out = await Promise.all([0, 1, 2, 3].map((i) => new Promise((res) => {
      const w = new Worker(code, { eval: true, workerData: { h: host, p: port, i } }); w.on('message', (m) => { res(m); w.terminate(); });
    })));
    if (out.some((m) => m.startsWith('ERR'))) throw new Error(out.join(','));
    return out.join(',');
  },
  // A connected socket handed to a forked child over node's IPC channel (SCM_RIGHTS on a socketpair).
  async 'fork-sock'() {
    const { fork } = require('child_process');
    const s = net.connect(port, host);
    await new Promise((res, rej) => { s.on('connect', res); s.on('error', rej); });
    const c = fork(__filename, ['child-sock', host, portS]);
    c.send('sock', s);
    const m = await new Promise((res) => c.on('message', res));
    s.destroy();
    if (!m.startsWith('echo')) throw new Error(m);
    return m;
  },
  'child-sock'() {
    return new Promise(() => process.on('message', (m, s) => {
      s.write('from-child'); s.on('data', (d) => { process.send('echo ' + d); process.exit(0); });
    }));
  },
  // cluster: the primary accepts and passes each connection to a worker (round robin, SCM_RIGHTS);
  // each worker answers with what it fetched from HOST:PORT; the primary asks its own server 4 times.
  async cluster() {
    const cluster = require('cluster');
    cluster.schedulingPolicy = cluster.SCHED_RR;
    cluster.setupPrimary({ args: ['cluster-worker', host, portS, host2, port2S] });
    const ws = [cluster.fork(), cluster.fork()];
    await Promise.all(ws.map((w) => new Promise((res) => w.on('listening', res))));
    const out = [];
    for (let i = 0; i < 4; i++) out.push((await get('127.0.0.1', port2, '/x', false)).trim());
    ws.forEach((w) => w.kill());
    if (out.some((m) => !m.startsWith('hello'))) throw new Error(out.join(','));
    return out.join(',');
  },
  'cluster-worker'() {
    http.createServer((q, r) => get(host, port).then((b) => r.end(b), (e) => r.end('ERR ' + e.code))).listen(port2, '127.0.0.1');
    return new Promise(() => {});
  },
  // Unconnected UDP: 8 sends in one tick (libuv batches queued sends in sendmmsg); the undeclared
  // form interleaves HOST2:PORT2 with the declared echo.
  async 'dgram-batch'() {
    const s = dgram.createSocket('udp4'); let got = 0;
    s.on('message', () => { got++; });
    await new Promise((res) => s.bind(0, '127.0.0.1', res));
    const errs = [];
    for (let i = 0; i < 8; i++) {
      const [h, p] = (host2 && i % 2) ? [host2, port2] : [host, port];
      s.send('dg' + i, p, h, (e) => e && errs.push(e.code));
    }
    await new Promise((res) => setTimeout(res, 500));
    s.close();
    const want = host2 ? 4 : 8;
    if (got !== want || errs.length) throw new Error(`got ${got}/${want} errs ${errs}`);
    return `got ${got}`;
  },
  // net.connect with autoSelectFamily (node's happy eyeballs, 10 ms attempts) to a name.
  async ase() {
    const s = net.connect({ host, port, autoSelectFamily: true, autoSelectFamilyAttemptTimeout: 10 });
    await new Promise((res, rej) => { s.on('connect', res); s.on('error', rej); });
    const peer = s.remoteAddress; s.destroy();
    return peer;
  },
  async uring() {
    const fs = require('fs');
    await fs.promises.readFile(__filename); await fs.promises.writeFile(`${process.env.HOME}/u-${process.getuid()}.txt`, 'x');
    return (await get(host, port)).trim();
  },
};
(async () => {
  try { const r = await modes[mode](); console.log('OK', mode, r); process.exit(0); } catch (e) { die(e); }
})();
