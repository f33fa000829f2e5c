#!/usr/bin/env bash
# Measures the release table server with table-load, RUNS times, each time
# on a new server with an empty data directory (the tables a run leaves
# behind would be played by computers once their people are away, and
# weigh on the next run).
#
#   crates/table-load/measure.sh PORT RUNS [TABLE-LOAD OPTIONS...]
#
# e.g. crates/table-load/measure.sh 23780 3 --tables 2000 --interval-ms 1000 --seconds 60 --ramp-seconds 20
#
# Build first: cargo build --release -p mille -p table-load. SERVER=PATH
# measures another build of `mille` (e.g. an older commit's). Each run's
# report goes to target/load/RUN.txt; the commit measured is printed first.
set -euo pipefail
cd "$(dirname "$0")/../.."
port=${1:?PORT}
runs=${2:?RUNS}
shift 2
server_bin=${SERVER:-target/release/mille}
# A socket per connection, in both processes.
ulimit -n 20000
mkdir -p target/load
echo "commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates/table-server || echo ' (table-server changed since)'), server $server_bin"
status=0
for run in $(seq 1 "$runs"); do
  log=target/load/server-$run.log
  # A server still stopping holds the port for a moment.
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
    sleep 0.2
  done
  data=$(mktemp -d)
  # Emptied here, not by the server's redirection, which may come after
  # the first look for "listening" below.
  : >"$log"
  RUST_LOG=warn "$server_bin" serve --listen "127.0.0.1:$port" --no-socket \
    --data "$data" --bot-delay 0 --hand-pause 0 >"$log" 2>&1 &
  server=$!
  for _ in $(seq 150); do
    grep -q listening "$log" && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.2
  done
  if ! grep -q listening "$log"; then
    echo "== run $run: the server did not start"
    cat "$log"
    kill "$server" 2>/dev/null || true
    exit 1
  fi
  target/release/table-load --server "ws://127.0.0.1:$port/ws" --server-pid "$server" "$@" \
    >"target/load/$run.txt" 2>"target/load/progress-$run.txt" || status=1
  if kill -TERM "$server" 2>/dev/null; then
    wait "$server" || true
  else
    wait "$server" && code=0 || code=$?
    echo "== run $run: the server had stopped by itself (exit status $code)"
    status=1
  fi
  rm -rf "$data"
  echo "== run $run"
  cat "target/load/$run.txt"
  tail -n 3 "target/load/progress-$run.txt"
done
exit "$status"
