#!/usr/bin/env bash
# Starts the compiled binary on a free loopback port with a temp data dir and checks that it
# answers like `npm start` does: /healthz, /docs/json, and /api/v1/chains/ with a test key.
set -euo pipefail
bin=$(realpath "${1:-dist/mehir}")
dir=$(mktemp -d)
port=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
cleanup() { [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT

"$bin" --help >/dev/null
"$bin" serve --help >/dev/null

headers=()
if "$bin" accounts create --email ci@example.com --plan pro --data-dir "$dir" >/dev/null 2>&1; then
  key=$("$bin" keys create --email ci@example.com --kind test --data-dir "$dir" | tail -n 1)
  headers=(-H "X-API-Key: $key")
fi

MEHIR_LOG_LEVEL=warn "$bin" serve --host 127.0.0.1 --port "$port" --data-dir "$dir" &
pid=$!
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.2
done
check() {
  local path=$1 expect=$2
  local body
  body=$(curl -fsS "${headers[@]}" "http://127.0.0.1:$port$path")
  if ! grep -q "$expect" <<<"$body"; then
    echo "smoke: $path did not contain $expect: ${body:0:300}" >&2
    exit 1
  fi
  echo "smoke: $path ok"
}
check /healthz '"status":"ok"'
check /docs/json '"openapi"'
check /api/v1/chains/ '"chain_id":"rami-levy"'
check /docs '<html'
check /widget/v1/loader.js 'data-svc-widget'
# The widget demo page embeds the service's own demo key once the demo data is in (no key of ours),
# and that key reads widget data from the service's own origin.
for _ in $(seq 1 120); do
  demo=$(curl -fsS "http://127.0.0.1:$port/widget/v1/demo.html")
  grep -q 'data-api-key="pk_live_' <<<"$demo" && break
  sleep 0.5
done
demo_key=$(grep -o 'data-api-key="pk_live_[A-Za-z0-9]*"' <<<"$demo" | head -n 1 | cut -d'"' -f2)
demo_barcode=$(grep -o 'data-barcode="[0-9]*"' <<<"$demo" | head -n 1 | cut -d'"' -f2)
if [ -z "$demo_key" ] || ! curl -fsS -H "Origin: http://127.0.0.1:$port" "http://127.0.0.1:$port/api/v1/widget/data/?barcode=$demo_barcode&key=$demo_key" | grep -q '"cheapest_chain_id"'; then
  echo "smoke: the widget demo page shows no working widget: ${demo:0:300}" >&2
  exit 1
fi
echo "smoke: /widget/v1/demo.html ok"
echo "smoke: binary ok"
