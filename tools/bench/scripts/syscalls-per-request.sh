#!/bin/bash
# System calls and main-thread CPU per proxied request, for the minimal http.request forwarder or
# the data plane with issue 19's policy set (tools/bench/README.md, "System calls per request").
# Load-independent part: the strace counts (divide by N). The CPU ticks are noisy on a busy machine.
#
#   tools/bench/scripts/syscalls-per-request.sh forwarder|policies [N] [body bytes]
#
# Needs what proxy-under-load.sh needs, and strace.
set -eu
KIND=$1; N=${2:-40000}; SIZE=${3:-100}
. "$(dirname "$0")/proxy-under-load.sh"
# main-thread ticks of a process: utime stime (fields 14/15 of the first task's stat)
ticks() { python3 -c 'import sys;s=open(f"/proc/{sys.argv[1]}/task/{sys.argv[1]}/stat").read();f=s[s.rindex(")")+2:].split();print(f[11],f[12])' "$1"; }
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
