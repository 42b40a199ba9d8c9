#!/bin/bash
# What the proxy's event loop runs, by the async resource type behind each callback, per proxied
# request (servers/loop-callbacks.ts, preloaded): timers, immediates and nextTick drains beside the
# socket and HTTP callbacks, and which types the long steps belong to (tools/bench/README.md,
# Results, h-tail-loop). async_hooks slows every callback: compare counts and types, not durations.
#
#   tools/bench/scripts/loop-callbacks.sh forwarder|policies [N] [body bytes] [offered rate a second]
#
# Needs what proxy-under-load.sh needs.
set -eu
KIND=$1; N=${2:-20000}; SIZE=${3:-16384}; RATE=${4:-}
CENSUS=$(mktemp /tmp/loop-callbacks.XXXXXX.json)
export BENCH_LOOP_CALLBACKS=$CENSUS
PROXY_NODE_FLAGS="--require $(cd "$(dirname "$0")/../dist/servers" && pwd)/loop-callbacks.js"
. "$(dirname "$0")/proxy-under-load.sh"
load 20000 # warm-up
kill -USR1 "$PROXY"
load "$N" "$RATE"
kill -USR2 "$PROXY"
sleep 0.5
echo "$KIND, $N requests of $SIZE B, 64 connections, ${RATE:-closed loop}${RATE:+ a second}"
python3 - "$CENSUS" "$N" <<'PY'
import json, sys
census, n = json.load(open(sys.argv[1])), int(sys.argv[2])
bounds = census["boundsMs"]
print(f"{'type':<22}{'per request':>12}{'total ms':>10}{'max ms':>9}  steps above " + ", ".join(f"{b} ms" for b in bounds[4:]))
for name, s in sorted(census["steps"].items(), key=lambda kv: -kv[1]["totalMs"]):
    above = [sum(s["histogram"][i + 1:]) for i in range(4, len(bounds))]
    print(f"{name:<22}{s['count'] / n:>12.3f}{s['totalMs']:>10.0f}{s['maxMs']:>9.2f}  " + ", ".join(str(a) for a in above))
print(f"window {census['windowMs'] / 1000:.1f} s; raw: {sys.argv[1]}")
PY
