#!/usr/bin/env python3
"""Where a pinned proxy's main thread waits: its threads' CPU and run-queue wait per measurement.

Reads only /proc, beside a running `proxy-policies` bench (tools/bench/README.md, Results, h-tail-loop):

  proxy-threads.py sample <bench pid> <samples file> [seconds]   every 0.5 s, each thread of each
      proxy the bench started: run and run-queue wait (ns) from /proc/<pid>/task/<tid>/schedstat
  proxy-threads.py windows <bench log> <samples file>              per measurement line of the log
      ("round r/n <case> body <label>: ..."), the 10 s before it (--duration 10): the main thread's
      run and wait, and the run of the proxy's other threads (V8's workers, libuv's pool)

A proxy is named as the log names it: the forwarder scripts by their file, a data plane by its bin
(BENCH_PROXY_BASELINE_BIN's is the "..., BENCH_PROXY_BASELINE_BIN" label) and by whether its
proxy.yml has the policy set (a rateLimit field).
"""
import collections
import datetime
import os
import re
import sys
import time

FORWARDERS = {'forwarder.js': 'forwarder, http.request', 'undici-forwarder.js': 'forwarder, undici Pool'}


def cmdline(pid):
    with open(f'/proc/{pid}/cmdline', 'rb') as f:
        return [a.decode() for a in f.read().split(b'\0') if a]


def label_of(args):
    for arg in args:
        for script, label in FORWARDERS.items():
            if arg.endswith('/servers/' + script):
                return label
    if 'start' not in args or '--config' not in args:
        return None
    with open(args[args.index('--config') + 1]) as f:
        policies = 'rateLimit' in f.read()
    label = 'data plane, policy set' if policies else 'data plane, open route'
    baseline = os.environ.get('BENCH_PROXY_BASELINE_BIN')
    return label + ', BENCH_PROXY_BASELINE_BIN' if baseline and baseline in args else label


def children(bench_pid):
    found = {}
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open(f'/proc/{pid}/stat') as f:
                if f.read().rsplit(')', 1)[1].split()[1] != str(bench_pid):
                    continue
            label = label_of(cmdline(pid))
        except OSError:
            continue
        if label is not None:
            found[pid] = label
    return found


def sample(bench_pid, path, seconds):
    end, proxies, refreshed = time.time() + seconds, {}, 0.0
    with open(path, 'w') as out:
        while time.time() < end and os.path.exists(f'/proc/{bench_pid}'):
            now = time.time()
            if now - refreshed > 5:
                proxies, refreshed = children(bench_pid), now
            for pid, label in proxies.items():
                try:
                    for tid in os.listdir(f'/proc/{pid}/task'):
                        with open(f'/proc/{pid}/task/{tid}/schedstat') as f:
                            run, wait, _ = f.read().split()
                        out.write(f'{now:.2f}\t{label}\t{tid}\t{int(tid == pid)}\t{run}\t{wait}\n')
                except OSError:
                    pass
            out.flush()
            time.sleep(0.5)


def windows(log_path, samples_path, duration=10.0):
    series = collections.defaultdict(list)
    with open(samples_path) as f:
        for line in f:
            t, label, tid, main, run, wait = line.rstrip('\n').split('\t')
            series[(label, tid, main == '1')].append((float(t), int(run), int(wait)))

    def at(points, t):
        before = [p for p in points if p[0] <= t]
        return before[-1] if before else None

    day = datetime.datetime.fromtimestamp(min(p[0][0] for p in series.values()), datetime.timezone.utc).date()
    line_re = re.compile(r'\[bench (\d\d:\d\d:\d\d)\] \S+: round (\d+)/\d+ (.+?) body (.+?): [\d,]+ req/s, p50 ([\d.]+) ms, p99 ([\d.]+) ms')
    print('case\tround\tproxy\tp99 ms\tmain run ms\tmain wait ms\tother threads run ms')
    with open(log_path) as f:
        for line in f:
            m = line_re.match(line)
            if not m:
                continue
            hms, rnd, case, label, _, p99 = m.groups()
            end = datetime.datetime.combine(day, datetime.time.fromisoformat(hms), datetime.timezone.utc).timestamp()
            main_run = main_wait = other = 0.0
            for (name, _, main), points in series.items():
                first, last = at(points, end - duration), at(points, end)
                if name != label or first is None or last is None:
                    continue
                if main:
                    main_run += (last[1] - first[1]) / 1e6
                    main_wait += (last[2] - first[2]) / 1e6
                else:
                    other += (last[1] - first[1]) / 1e6
            print(f'{case}\t{rnd}\t{label}\t{p99}\t{main_run:.0f}\t{main_wait:.0f}\t{other:.0f}')


if __name__ == '__main__':
    if len(sys.argv) >= 4 and sys.argv[1] == 'sample':
        sample(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]) if len(sys.argv) > 4 else 3600)
    elif len(sys.argv) == 4 and sys.argv[1] == 'windows':
        windows(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
