// node-harness.js SV: a Node.js harness as agent runners write it (libuv
// gives the child AF_UNIX socketpairs as stdio pipes); the prompt is written
// right after spawn. Prints the supervisor's exit status and what cat echoed.
const { spawn } = require('child_process');
const child = spawn(process.argv[2], ['--no-loopback', '--', '/bin/cat']);
child.stdin.write('summarise this file\n');
child.stdin.end();
let out = '', err = '';
child.stdout.on('data', (d) => { out += d; });
child.stderr.on('data', (d) => { err += d; });
child.on('close', (code) => {
  console.log('exit', code, 'stdout', JSON.stringify(out));
  console.log(err.split('\n').filter((l) => l).slice(-1)[0]);
});
