#!/usr/bin/env node
// Garbage collections per 1,000 proxied requests (tools/bench/README.md, branch h-tail-gc): the
// loopback upstream, then each proxy in turn under autocannon at one offered rate (autocannon's
// overallRate: each connection runs closed-loop until its share of the second is used), the proxy
// with --trace-gc-nvp and pinned to core 1 (upstream and load on core 0). Prints, per proxy: the
// requests, autocannon's p50/p99, scavenges and mark-compacts per 1,000 requests with their pauses,
// V8-heap bytes allocated a request (nvp "allocated"; ArrayBuffer backing stores are not in it).
//
//   node tools/bench/scripts/gc-per-request.cjs            (after a build)
//   env: WHICH=forwarder,policies[,policies-before]  SIZE=16384  RATE=10000  DUR=10  CONN=64  PIN=1
//        GWFLAGS='--max-semi-space-size=32' (the data plane's node flags; default: its shebang's)
//        EXTRA='<node flags for both proxies>'  BASE_BIN=<other build's apps/cli/bin/gateway.js> for policies-before
//        EXTRA='--require tools/bench/scripts/in-proxy-time.cjs' adds the in-proxy time of each request
//        (and PROBE_DUMP=<file prefix> writes each request's time and the GC pauses for overlap analysis)
// Counts do not depend on the machine's load; the pauses and latencies do (say the load average).
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const WT = path.resolve(__dirname, '..', '..', '..');
const autocannon = require(path.join(WT, 'node_modules/autocannon'));
const RATE = Number(process.env.RATE || 10000);
const DUR = Number(process.env.DUR || 10);
const SIZE = Number(process.env.SIZE || 16384);
const CONN = Number(process.env.CONN || 64);
const PIN = process.env.PIN !== '0';
const EXTRA = (process.env.EXTRA || '').split(' ').filter(Boolean);
const which = (process.env.WHICH || 'forwarder,policies').split(',');
const BIN = path.join(WT, 'apps/cli/bin/gateway.js');
const LOGS = fs.mkdtempSync(path.join(os.tmpdir(), 'gc-per-request-'));

function start(name, args, cpu) {
  const cmd = PIN ? 'taskset' : process.execPath;
  const full = PIN ? ['-c', String(cpu), process.execPath, ...args] : args;
  const child = spawn(cmd, full, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'warn' } });
  const lines = [];
  let pending = '';
  const log = fs.createWriteStream(path.join(LOGS, `${name}.log`));
  child.on('exit', (code, sig) => { log.write(`EXIT ${code} ${sig}\n`); });
  const onData = (d) => { log.write(d); pending += d; const ls = pending.split('\n'); pending = ls.pop(); for (const l of ls) lines.push({ t: Date.now(), l }); };
  child.stdout.setEncoding('utf8').on('data', onData);
  child.stderr.setEncoding('utf8').on('data', onData);
  return { name, child, lines };
}
const waitPort = (p) => new Promise((res, rej) => {
  const t0 = Date.now();
  const iv = setInterval(() => {
    const hit = p.lines.find((x) => x.l.startsWith('{"bench":"listening"'));
    if (hit) { clearInterval(iv); res(JSON.parse(hit.l).port); }
    if (Date.now() - t0 > 20000) { clearInterval(iv); rej(new Error(p.name + ' no port ' + p.lines.map((x) => x.l).join('\n'))); }
  }, 50);
});
const healthy = (port) => new Promise((res) => {
  const req = require('node:http').get({ host: '127.0.0.1', port, path: '/health/live', agent: false }, (r) => { r.resume(); res(r.statusCode === 200); });
  req.on('error', () => res(false));
});
const load = (url, duration, rate) => new Promise((res, rej) => {
  const lat = [];
  const inst = autocannon({ url, connections: CONN, duration, pipelining: 1, ...(rate ? { overallRate: rate } : {}), timeout: 10 }, (e, r) => (e ? rej(e) : res({ r, lat })));
  inst.on('response', (_c, status, _b, ms) => { if (status === 200) lat.push(ms); });
});
function parseNvp(lines, t0, t1) {
  const out = { scav: 0, mc: 0, other: 0, pauses: [], allocated: 0, promoted: 0, survived: 0, mcPauses: [], kinds: {} };
  for (const { t, l } of lines) {
    if (t < t0 || t > t1) continue;
    const m = /pause=([\d.]+).* gc=(\w+)/.exec(l);
    if (!m) continue;
    const kv = Object.fromEntries(l.split(' ').filter((x) => x.includes('=')).map((x) => x.split('=')));
    out.kinds[m[2]] = (out.kinds[m[2]] || 0) + 1;
    const pause = Number(m[1]);
    if (m[2] === 's') { out.scav++; out.pauses.push(pause); } else { out.mc++; out.mcPauses.push(pause); }
    out.allocated += Number(kv.allocated || 0); out.promoted += Number(kv.promoted || 0); out.survived += Number(kv.new_space_survived || 0);
  }
  return out;
}
const tw = (port) => Number(require('node:child_process').execSync(`ss -tanH state time-wait '( dport = :${port} )' | wc -l`).toString().trim());
const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN; };
(async () => {
  const up = start('upstream', [path.join(WT, 'tools/bench/dist/servers/upstream.js')], 0);
  const upPort = await waitPort(up);
  const origin = `http://127.0.0.1:${upPort}`;
  const results = [];
  for (const v of which) {
    let p, port;
    if (v === 'forwarder') {
      p = start(v, [...EXTRA, ...(process.env.NVP === '0' ? [] : ['--trace-gc-nvp']), path.join(WT, 'tools/bench/dist/servers/forwarder.js'), origin, '/api'], 1);
      port = await waitPort(p);
    } else {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agc-'));
      const route = { path: '/api/*', upstream: 'bench', rateLimit: { enabled: true, max: 1e9, windowMs: 60000, strategy: 'token-bucket', scope: 'ip' }, circuitBreaker: { enabled: true, threshold: 50, volumeThreshold: 20, timeout: 30000 }, headers: { request: { set: { 'X-Request-Id': '${requestId}', 'X-Client-Ip': '${clientIp}' } }, response: { set: { 'X-Served-By': 'gateway ${route}' } } } };
      fs.writeFileSync(path.join(dir, 'proxy.yml'), JSON.stringify({ version: '1.0.0', upstreams: [{ name: 'bench', url: origin }], routes: [route] }));
      port = 20000 + Math.floor(Math.random() * 20000);
      const bin = v === 'policies-before' ? process.env.BASE_BIN : BIN;
      if (bin === undefined) throw new Error('policies-before needs BASE_BIN');
      const shebang = /^#!\/usr\/bin\/env -S node(.*)$/m.exec(fs.readFileSync(bin, 'utf8').split('\n')[0]);
      const flags = process.env.GWFLAGS !== undefined ? process.env.GWFLAGS.split(' ').filter(Boolean) : (shebang ? shebang[1].trim().split(/\s+/).filter(Boolean) : []);
      p = start(v, [...flags, ...EXTRA, ...(process.env.NVP === '0' ? [] : ['--trace-gc-nvp']), bin, 'start', '--role', 'data-plane', '--config', path.join(dir, 'proxy.yml'), '--port', String(port), '--host', '127.0.0.1', '--data-dir', path.join(dir, 'data')], 1);
      for (let i = 0; i < 200 && !(await healthy(port)); i++) await new Promise((r) => setTimeout(r, 100));
    }
    const url = `http://127.0.0.1:${port}/api/bytes/${SIZE}`;
    await load(url, 5, RATE); // warm-up
    const tw0 = tw(upPort);
    if (EXTRA.some((x) => x.includes('in-proxy-time'))) p.child.kill('SIGUSR2');
    await new Promise((r) => setTimeout(r, 20));
    const t0 = Date.now();
    const { r, lat } = await load(url, DUR, RATE);
    const t1 = Date.now();
    await new Promise((res) => setTimeout(res, 300));
    if (EXTRA.some((x) => x.includes('in-proxy-time'))) p.child.kill('SIGUSR2');
    await new Promise((r) => setTimeout(r, 500));
    const timeWait = tw(upPort) - tw0;
    const probeLine = p.lines.find((x) => x.l.startsWith('PROBE '));
    const probe = probeLine ? JSON.parse(probeLine.l.slice(6)) : undefined;
    const g = parseNvp(p.lines, t0, t1 + 50);
    const n = lat.length / 1000;
    results.push({ v, probe, timeWait, req: lat.length, p50: pct(lat, 50).toFixed(2), p99: pct(lat, 99).toFixed(2), max: Math.max(...lat).toFixed(1), kinds: g.kinds, scavPer1k: (g.scav / n).toFixed(3), mcPer1k: (g.mc / n).toFixed(3), kbAllocPerReq: (g.allocated / lat.length / 1024).toFixed(2), promotedKBPer1k: (g.promoted / n / 1024).toFixed(1), survivedKBperScav: (g.survived / Math.max(1, g.scav) / 1024).toFixed(0), scavPause: { p50: pct(g.pauses, 50), p99: pct(g.pauses, 99), max: Math.max(...g.pauses), sum: g.pauses.reduce((a, b) => a + b, 0).toFixed(1) }, mcPauses: g.mcPauses, errors: r.errors, non2xx: r.non2xx });
    if (process.env.DUMP) fs.writeFileSync(path.join(LOGS, `${v}.gc.log`), p.lines.filter((x) => x.t >= t0 && x.t <= t1).map((x) => x.l).join('\n'));
    p.child.kill('SIGTERM');
    if (p.child.exitCode === null && p.child.signalCode === null) await new Promise((res) => p.child.on('exit', res));
  }
  up.child.kill('SIGTERM');
  console.log(JSON.stringify({ load: os.loadavg(), RATE, SIZE, DUR, logs: LOGS, results }, null, 1));
})().catch((e) => { console.error(e); process.exit(1); });
