// Preloaded into a proxy (node --require) by gc-per-request.cjs: each request's time inside the
// proxy, from node:http's 'request' event to its response's 'finish', and the GC pauses (perf_hooks),
// between two SIGUSR2 (the first starts, the second prints one "PROBE {json}" line on stderr).
const http = require('node:http');
const { performance } = require('node:perf_hooks');
const MAX = 2_000_000;
const inProxy = new Float64Array(MAX);
const at = new Float64Array(MAX);
let n = 0;
let armed = false;
const gcs = [];
const { PerformanceObserver } = require('node:perf_hooks');
new PerformanceObserver((list) => { if (armed) for (const e of list.getEntries()) gcs.push([e.startTime, e.duration, e.detail ? e.detail.kind : e.kind]); }).observe({ entryTypes: ['gc'] });
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req, res) {
  if (event === 'request' && armed && n < MAX) {
    const t0 = performance.now();
    const i = n++;
    at[i] = t0;
    inProxy[i] = NaN;
    res.once('finish', () => { inProxy[i] = performance.now() - t0; });
  }
  return emit.apply(this, arguments);
};
process.on('SIGUSR2', () => {
  if (!armed) { armed = true; n = 0; return; }
  armed = false;
  const v = Array.from(inProxy.subarray(0, n)).filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  const q = (p) => v[Math.min(v.length - 1, Math.floor(p * v.length))];
  process.stderr.write(`PROBE ${JSON.stringify({ n: v.length, p50: q(0.5), p90: q(0.9), p99: q(0.99), p999: q(0.999), max: v.at(-1), mean: v.reduce((a, b) => a + b, 0) / v.length })}\n`);
  if (process.env.PROBE_DUMP) require('node:fs').writeFileSync(process.env.PROBE_DUMP + '.' + process.pid, JSON.stringify({ at: Array.from(at.subarray(0, n)), d: Array.from(inProxy.subarray(0, n)), gcs }));
});
