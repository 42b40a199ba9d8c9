#!/bin/bash
# System calls and main-thread CPU per proxied request, for the minimal http.request forwarder or
# the data plane with issue 19's policy set (tools/bench/README.md, "System calls per request").
# Load-independent part: the strace counts (divide by N). The CPU ticks are noisy on a busy machine.
#
#   tools/bench/scripts/syscalls-per-request.sh forwarder|policies [N] [body bytes]
#
# Needs a build (tools/bench/dist, apps/cli/bin/gateway.js), strace and npx autocannon.
set -eu
KIND=$1; N=${2:-40000}; SIZE=${3:-100}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
OUT=$(mktemp -d /tmp/syscalls-per-request.XXXXXX)
cd "$ROOT"
exec 3< <(exec sleep 100000 2> /dev/null) # the bench servers exit when their stdin closes
HOLDER=$!

port_of() { for _ in $(seq 100); do p=$(grep -o '"port":[0-9]*' "$1" | cut -d: -f2 || true); [ -n "$p" ] && { echo "$p"; return; }; sleep 0.1; done; echo "no port in $1" >&2; exit 1; }
# main-thread ticks of a process: utime stime (fields 14/15 of the first task's stat)
ticks() { python3 -c 'import sys;s=open(f"/proc/{sys.argv[1]}/task/{sys.argv[1]}/stat").read();f=s[s.rindex(")")+2:].split();print(f[11],f[12])' "$1"; }

node tools/bench/dist/servers/upstream.js > "$OUT/upstream.out" 2>&1 <&3 &
UPSTREAM=$!
UPPORT=$(port_of "$OUT/upstream.out")
if [ "$KIND" = forwarder ]; then
  node tools/bench/dist/servers/forwarder.js "http://127.0.0.1:$UPPORT" /api > "$OUT/proxy.out" 2>&1 <&3 &
  PROXY=$!
  PORT=$(port_of "$OUT/proxy.out")
else
  PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
  cat > "$OUT/proxy.yml" <<YML
{"version":"1.0.0","upstreams":[{"name":"bench","url":"http://127.0.0.1:$UPPORT"}],"routes":[{"path":"/api/*","upstream":"bench","rateLimit":{"enabled":true,"max":1000000000,"windowMs":60000,"strategy":"token-bucket","scope":"ip"},"circuitBreaker":{"enabled":true,"threshold":50,"volumeThreshold":20,"timeout":30000},"headers":{"request":{"set":{"X-Request-Id":"\${requestId}","X-Client-Ip":"\${clientIp}"}},"response":{"set":{"X-Served-By":"gateway \${route}"}}}}]}
YML
  LOG_LEVEL=warn node apps/cli/bin/gateway.js start --role data-plane --config "$OUT/proxy.yml" --port "$PORT" --host 127.0.0.1 --data-dir "$OUT/data" > "$OUT/proxy.out" 2>&1 <&3 &
  PROXY=$!
  for _ in $(seq 300); do curl -sf "http://127.0.0.1:$PORT/health/live" > /dev/null && break; sleep 0.2; done
fi
trap 'kill $PROXY $UPSTREAM $HOLDER 2>/dev/null || true' EXIT
URL="http://127.0.0.1:$PORT/api/bytes/$SIZE"
load() { npx autocannon -c 64 -a "$1" "$URL" > /dev/null 2>&1; }
load 20000 # warm-up

strace -c -f -p "$PROXY" -o "$OUT/proxy.strace" & SP=$!
strace -c -f -p "$UPSTREAM" -o "$OUT/upstream.strace" & SU=$!
sleep 1
load "$N"
sleep 0.5
kill -INT $SP $SU; wait $SP $SU 2>/dev/null || true

load "$N" # settle after strace
before=$(ticks "$PROXY"); load "$N"; after=$(ticks "$PROXY")
echo "$KIND, $N requests of $SIZE B, 64 connections"
for who in proxy upstream; do
  echo "$who: calls per request"
  awk -v n="$N" '$1 ~ /^[0-9.]+$/ && NF >= 5 { printf "  %-14s %.3f\n", $NF, $4 / n }' "$OUT/$who.strace" | sort -k2 -rn | head -12
done
read -r u0 s0 <<< "$before"; read -r u1 s1 <<< "$after"
awk -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v n="$N" -v hz="$(getconf CLK_TCK)" \
  'BEGIN { printf "proxy main thread, no strace: user %.1f us, sys %.1f us per request\n", u / hz / n * 1e6, s / hz / n * 1e6 }'
echo "raw output: $OUT"
