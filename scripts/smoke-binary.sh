#!/usr/bin/env bash
# Starts the compiled binary on a free loopback port with a temp data dir and checks that it
# answers like `npm start` does: /healthz, /docs/json, and /api/v1/chains/ with a test key; /docs
# and every asset it references served by the binary itself (no external URL); the widget demo;
# then `bun src/main.ts serve` (what `npm start` runs) on the same data answers the same.
set -euo pipefail
bin=$(realpath "${1:-dist/mehir}")
dir=$(mktemp -d)
free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
port=$(free_port)
cleanup() {
  for p in ${pid:-} ${src_pid:-}; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT

"$bin" --help >/dev/null
"$bin" serve --help >/dev/null

headers=()
if "$bin" accounts create --create --email ci@example.com --plan pro --data-dir "$dir" >/dev/null 2>&1; then
  key=$("$bin" keys create --email ci@example.com --kind test --data-dir "$dir" | tail -n 1)
  headers=(-H "X-API-Key: $key")
fi

# Its log is kept: a worker the binary lacks shows as a warning there (the work falls back to the serving thread).
MEHIR_LOG_LEVEL=warn MEHIR_METRICS_ADDR=127.0.0.1:0 "$bin" serve --host 127.0.0.1 --port "$port" --data-dir "$dir" >"$dir/serve.log" 2>&1 &
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
# /docs works with no internet: no URL to another host in the page, every asset it references served here.
docs=$(curl -fsS "http://127.0.0.1:$port/docs")
if grep -Eo '(src|href)="(https?:)?//[^"]*"' <<<"$docs" | grep -q .; then
  echo "smoke: /docs references an external URL: $(grep -Eo '(src|href)="(https?:)?//[^"]*"' <<<"$docs" | head -n 3)" >&2
  exit 1
fi
assets=$(grep -Eo '(src|href)="/[^"]*"' <<<"$docs" | cut -d'"' -f2 | sort -u)
[ -n "$assets" ] || { echo "smoke: /docs references no asset" >&2; exit 1; }
for asset in $assets; do
  curl -fsS -o /dev/null "http://127.0.0.1:$port$asset" || { echo "smoke: /docs asset $asset not served" >&2; exit 1; }
  echo "smoke: /docs asset $asset ok"
done
check /widget/v1/loader.js 'data-svc-widget'
# The widget demo page embeds the service's own demo key once the demo data is in (no key of ours),
# and that key reads widget data from the service's own origin.
for _ in $(seq 1 120); do
  demo=$(curl -fsS "http://127.0.0.1:$port/widget/v1/demo.html")
  grep -q 'data-api-key="pk_live_' <<<"$demo" && break
  sleep 0.5
done
# `|| true`: no key on the page is reported below, with the server's log, not a silent exit of pipefail.
demo_key=$(grep -o 'data-api-key="pk_live_[A-Za-z0-9]*"' <<<"$demo" | head -n 1 | cut -d'"' -f2 || true)
demo_barcode=$(grep -o 'data-barcode="[0-9]*"' <<<"$demo" | head -n 1 | cut -d'"' -f2 || true)
if [ -z "$demo_key" ] || ! curl -fsS -H "Origin: http://127.0.0.1:$port" "http://127.0.0.1:$port/api/v1/widget/data/?barcode=$demo_barcode&key=$demo_key" | grep -q '"cheapest_chain_id"'; then
  echo "smoke: the widget demo page shows no working widget (no data after 60 s?); the server's log:" >&2
  grep -v '"msg":"request"' "$dir/serve.log" | head -n 20 >&2
  exit 1
fi
echo "smoke: /widget/v1/demo.html ok"
# The first start generated and imported the demo in the binary's own workers (build.ts WORKERS).
if grep -i 'worker' "$dir/serve.log" | grep -q .; then
  echo "smoke: the binary's first start reports a worker problem:" >&2
  grep -i 'worker' "$dir/serve.log" | head -n 5 >&2
  exit 1
fi
echo "smoke: first start ran in the binary's workers"

# The same answers from `bun src/main.ts serve` (npm start) on the same data, when the sources are here.
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -x "$root/node_modules/.bin/bun" ] && [ -f "$root/src/main.ts" ]; then
  src_port=$(free_port)
  MEHIR_LOG_LEVEL=warn "$root/node_modules/.bin/bun" "$root/src/main.ts" serve --host 127.0.0.1 --port "$src_port" --data-dir "$dir" &
  src_pid=$!
  for _ in $(seq 1 100); do
    curl -fs "http://127.0.0.1:$src_port/readyz" >/dev/null 2>&1 && break
    sleep 0.2
  done
  # Without per-request fields (request id, quota left, rate-limit state, date).
  answer() {
    curl -sS -i "${headers[@]}" "http://127.0.0.1:$1$2" | tr -d '\r' \
      | grep -Eiv '^(date|x-request-id|x-ratelimit-[a-z]+|content-length):' \
      | sed -E 's/"request_id":"[^"]*"//g; s/"quota_remaining":[0-9]+//g'
  }
  for path in /healthz /readyz /api/v1/chains/ /api/v1/chains /docs/json /docs "/api/v1/prices/?barcode=$demo_barcode" /no/such/path; do
    if [ "$(answer "$port" "$path")" != "$(answer "$src_port" "$path")" ]; then
      echo "smoke: $path differs between the binary and bun src/main.ts serve" >&2
      diff <(answer "$port" "$path") <(answer "$src_port" "$path") | head -n 20 >&2
      exit 1
    fi
    echo "smoke: $path same as npm start"
  done
fi
echo "smoke: binary ok"
