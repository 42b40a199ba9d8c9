# Sourced by the scripts beside it: the loopback upstream and one proxy under test, the minimal
# http.request forwarder or the data plane with issue 19's policy set (tools/bench/README.md).
#   KIND=forwarder|policies SIZE=<body bytes> [PROXY_NODE_FLAGS="--require ..."] . proxy-under-load.sh
# Sets ROOT, OUT (a temp dir with the outputs), UPSTREAM and PROXY (pids), URL, and load N [RATE]:
# N requests over 64 connections, closed loop, or offered at RATE a second (autocannon's overallRate).
# Needs a build (tools/bench/dist, apps/cli/bin/gateway.js) and npx autocannon.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
OUT=$(mktemp -d /tmp/proxy-under-load.XXXXXX)
cd "$ROOT"
exec 3< <(exec sleep 100000 2> /dev/null) # the bench servers exit when their stdin closes
HOLDER=$!
read -r -a NODE_FLAGS <<< "${PROXY_NODE_FLAGS:-}"

port_of() { for _ in $(seq 100); do p=$(grep -o '"port":[0-9]*' "$1" | cut -d: -f2 || true); [ -n "$p" ] && { echo "$p"; return; }; sleep 0.1; done; echo "no port in $1" >&2; exit 1; }

node tools/bench/dist/servers/upstream.js > "$OUT/upstream.out" 2>&1 <&3 &
UPSTREAM=$!
UPPORT=$(port_of "$OUT/upstream.out")
if [ "$KIND" = forwarder ]; then
  node "${NODE_FLAGS[@]}" tools/bench/dist/servers/forwarder.js "http://127.0.0.1:$UPPORT" /api > "$OUT/proxy.out" 2>&1 <&3 &
  PROXY=$!
  PORT=$(port_of "$OUT/proxy.out")
else
  PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
  cat > "$OUT/proxy.yml" <<YML
{"version":"1.0.0","upstreams":[{"name":"bench","url":"http://127.0.0.1:$UPPORT"}],"routes":[{"path":"/api/*","upstream":"bench","rateLimit":{"enabled":true,"max":1000000000,"windowMs":60000,"strategy":"token-bucket","scope":"ip"},"circuitBreaker":{"enabled":true,"threshold":50,"volumeThreshold":20,"timeout":30000},"headers":{"request":{"set":{"X-Request-Id":"\${requestId}","X-Client-Ip":"\${clientIp}"}},"response":{"set":{"X-Served-By":"gateway \${route}"}}}}]}
YML
  # The bin's shebang flags (--max-semi-space-size=32), as `gateway start` runs.
  read -r -a SHEBANG <<< "$(head -1 apps/cli/bin/gateway.js | sed -e 's/^#!.*node//')"
  LOG_LEVEL=warn node "${SHEBANG[@]}" "${NODE_FLAGS[@]}" apps/cli/bin/gateway.js start --role data-plane --config "$OUT/proxy.yml" --port "$PORT" --host 127.0.0.1 --data-dir "$OUT/data" > "$OUT/proxy.out" 2>&1 <&3 &
  PROXY=$!
  for _ in $(seq 300); do curl -sf "http://127.0.0.1:$PORT/health/live" > /dev/null && break; sleep 0.2; done
fi
trap 'kill $PROXY $UPSTREAM $HOLDER 2>/dev/null || true' EXIT
URL="http://127.0.0.1:$PORT/api/bytes/$SIZE"
load() { npx autocannon -c 64 -a "$1" ${2:+-R "$2"} "$URL" > /dev/null 2>&1; }
