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
# Build first: cargo build --release -p mille -p table-load. Each run's
# report goes to target/load/RUN.txt; the commit measured is printed first.
set -euo pipefail
cd "$(dirname "$0")/../.."
port=${1:?PORT}
runs=${2:?RUNS}
shift 2
# A socket per connection, in both processes.
ulimit -n 20000
mkdir -p target/load
echo "commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates/table-server || echo ' (table-server changed since)')"
status=0
for run in $(seq 1 "$runs"); do
  data=$(mktemp -d)
  RUST_LOG=warn target/release/mille serve --listen "127.0.0.1:$port" --no-socket \
    --data "$data" --bot-delay 0 --hand-pause 0 >"target/load/server-$run.log" 2>&1 &
  server=$!
  for _ in $(seq 50); do
    grep -q listening "target/load/server-$run.log" && break
    sleep 0.1
  done
  target/release/table-load --server "ws://127.0.0.1:$port/ws" --server-pid "$server" "$@" \
    >"target/load/$run.txt" 2>"target/load/progress-$run.txt" || status=1
  kill -TERM "$server"
  wait "$server" || true
  rm -rf "$data"
  echo "== run $run"
  cat "target/load/$run.txt"
done
exit "$status"
