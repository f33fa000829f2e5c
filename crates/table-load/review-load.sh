#!/usr/bin/env bash
# Measures the moves' round trips of the release table server while it
# makes after-game reviews, against the same load without them: RUNS times
# each, each run on a new server with an empty database.
#
#   crates/table-load/review-load.sh PORT RUNS [TABLE-LOAD OPTIONS...]
#
# e.g. crates/table-load/review-load.sh 23790 3 --tables 200 --interval-ms 1000 --seconds 60 --ramp-seconds 20
#
# Each run first plays SEED_TABLES (default 4) quick Mille Bornes tables
# for SEED_SECONDS (default 40) with table-load, so that the database holds
# finished games to review (their people leave; what is unfinished then
# waits, paused, with nobody at it). Then table-load measures with the
# options given; in the "reviews" runs a loop asks for the review of every
# seat of every finished game, one after another (each asked again every
# half second until it is made: the page's way), for the whole
# measurement. The server makes them one at a time (--reviews-at-once 1,
# the default, with its default budget).
#
# Build first: cargo build --release -p mille -p table-load. Reports go to
# target/load/review-{plain,reviews}-RUN.txt; the commit is printed first.
set -euo pipefail
cd "$(dirname "$0")/../.."
port=${1:?PORT}
runs=${2:?RUNS}
shift 2
server_bin=target/release/mille
load_bin=target/release/table-load
seed_tables=${SEED_TABLES:-4}
seed_seconds=${SEED_SECONDS:-40}
ulimit -n 20000
out=target/load
mkdir -p "$out"

server=
asker=
data=
cleanup() {
  [[ -n $asker ]] && kill "$asker" 2>/dev/null || true
  if [[ -n $server ]]; then
    kill -TERM "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  [[ -n $data ]] && rm -rf "$data"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Asks for the review of every seat of the finished games $ids, back to
# back, until killed; counts those made in $1.
ask_reviews() {
  local made=$1 n=0
  for id in $ids; do
    for seat in 0 1; do
      while :; do
        code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/api/games/$id/review?seat=$seat")
        [[ $code == 200 ]] && break
        [[ $code == 202 ]] || { echo "review $id/$seat: $code" >&2; break; }
        sleep 0.5
      done
      n=$((n + 1))
      echo "$n" >"$made"
    done
  done
}

echo "commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates/table-server || echo ' (table-server changed since)'), server $server_bin"
for run in $(seq 1 "$runs"); do
  for mode in plain reviews; do
    for _ in $(seq 100); do
      (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
      sleep 0.2
    done
    data=$(mktemp -d)
    log=$out/review-server-$mode-$run.log
    : >"$log"
    RUST_LOG=warn "$server_bin" serve --listen "127.0.0.1:$port" --no-socket \
      --data "$data" --bot-delay 0 --hand-pause 0 --rate 1000 --away 3600 \
      --uncapped-address 127.0.0.1 >"$log" 2>&1 &
    server=$!
    for _ in $(seq 150); do
      grep -q listening "$log" && break
      sleep 0.2
    done
    grep -q listening "$log" || { echo "the server did not start"; cat "$log"; exit 1; }
    # The seed: finished games to review.
    "$load_bin" --server "ws://127.0.0.1:$port/ws" --tables "$seed_tables" --interval-ms 10 \
      --seconds "$seed_seconds" --ramp-seconds 1 >/dev/null 2>&1 || true
    ids=$(for i in $(seq 1 400); do
      [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/api/games/$i") == 200 ]] &&
        curl -s "http://127.0.0.1:$port/api/games/$i" | grep -q '"outcome":"finished"' && echo "$i"
    done | tr '\n' ' ' || true)
    echo "== run $run, $mode: $(wc -w <<<"$ids") finished games; load average $(cat /proc/loadavg)"
    made=$out/review-made-$mode-$run
    echo 0 >"$made"
    if [[ $mode == reviews ]]; then
      ask_reviews "$made" &
      asker=$!
    fi
    "$load_bin" --server "ws://127.0.0.1:$port/ws" --server-pid "$server" "$@" \
      >"$out/review-$mode-$run.txt" 2>"$out/review-progress-$mode-$run.txt" || true
    if [[ -n $asker ]]; then
      kill "$asker" 2>/dev/null || true
      wait "$asker" 2>/dev/null || true
      asker=
    fi
    kill -TERM "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    server=
    rm -rf "$data"
    data=
    echo "== run $run, $mode: reviews made $(cat "$made")"
    cat "$out/review-$mode-$run.txt"
  done
done
