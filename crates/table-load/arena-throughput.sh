#!/usr/bin/env bash
# Measures an arena's throughput: games finished an hour by BOTS network
# bots (`mille bot --connect --arena`) on the release server, RUNS times,
# each run on a new server with an empty database.
#
#   crates/table-load/arena-throughput.sh PORT RUNS SECONDS [SERVE OPTIONS...]
#
# e.g. crates/table-load/arena-throughput.sh 23791 3 600
#      crates/table-load/arena-throughput.sh 23791 3 300 --coup-fourre-window 200
#
# The bots are LEVELS (default "classic classic random random", one bot a
# level, named after it), the arena's rules RULES (default classic). Each
# run counts the arena games finished between the first game's end and the
# end of the run from /api/arena, and prints games an hour; the median of
# the runs is printed last. The server's options are the defaults unless
# given (notably the 2 s pause after every hazard, which hides coup-fourré
# chances and dominates a game between fast bots).
#
# Build first: cargo build --release -p mille. The commit is printed first.
set -euo pipefail
cd "$(dirname "$0")/../.."
port=${1:?PORT}
runs=${2:?RUNS}
seconds=${3:?SECONDS}
shift 3
bin=target/release/mille
levels=${LEVELS:-classic classic random random}
rules=${RULES:-classic}
base="http://127.0.0.1:$port"

pids=()
data=
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
  [[ -n $data ]] && rm -rf "$data"
  data=
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Arena games finished so far.
finished() {
  curl -sf "$base/api/arena" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["games"]))'
}

echo "commit $(git rev-parse --short HEAD); bots: $levels; rules: $rules; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
rates=()
for run in $(seq 1 "$runs"); do
  data=$(mktemp -d)
  "$bin" serve --listen "127.0.0.1:$port" --data "$data" --arena "$rules" "$@" \
    >"$data/server.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do
    curl -sf "$base/api/ladder" >/dev/null 2>&1 && break
    sleep 0.1
  done
  for level in $levels; do
    n=$(( ${#pids[@]} ))
    "$bin" bot --connect "127.0.0.1:$port" --name "$level-$n" --level "$level" --arena \
      --token-file "$data/$level-$n.token" >"$data/bot-$n.log" 2>&1 &
    pids+=($!)
  done
  # The clock starts at the first game's end, so that start-up is not
  # counted.
  until [[ $(finished) -ge 1 ]]; do sleep 1; done
  first=$(finished)
  start=$(date +%s.%N)
  sleep "$seconds"
  last=$(finished)
  end=$(date +%s.%N)
  rate=$(python3 -c "print(round(($last - $first) * 3600 / ($end - $start), 1))")
  echo "run $run: $((last - first)) games in $seconds s: $rate games an hour"
  rates+=("$rate")
  cleanup
done
python3 -c "import statistics,sys; print('median:', statistics.median(map(float, sys.argv[1:])), 'games an hour')" "${rates[@]}"
