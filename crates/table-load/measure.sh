#!/usr/bin/env bash
# Measures the release table server with table-load, RUNS times, each time
# on new servers with an empty database (the tables a run leaves behind
# would be played by computers once their people are away, and weigh on
# the next run).
#
#   crates/table-load/measure.sh PORT RUNS [TABLE-LOAD OPTIONS...]
#
# e.g. crates/table-load/measure.sh 23780 3 --tables 2000 --interval-ms 1000 --seconds 60 --ramp-seconds 20
#
# Build first: cargo build --release -p mille -p table-load. Settings, from
# the environment:
#
#   TARGET_DIR=DIR      the cargo target directory of that build (default
#                       target): the programs are DIR/release/mille and
#                       DIR/release/table-load, the reports go to DIR/load/
#   SERVER=PATH         measures another build of `mille` (e.g. an older
#                       commit's)
#   DATABASE=sqlite     (default) each server keeps its tables in SQLite
#                       in a new data directory
#   DATABASE=postgres   in PostgreSQL: the script starts a throw-away
#                       cluster (.ci/postgres; PostgreSQL must be
#                       installed), gives each run a new database in it,
#                       and stops it at the end, whatever happens
#   INSTANCES=1|2       (default 1) server instances on PORT, PORT+1...,
#                       sharing the run's database (2 needs
#                       DATABASE=postgres), with --lease 5; table-load
#                       gets every address, and puts each table's two
#                       connections on two instances, so that one of the
#                       two is forwarded to the instance running the table
#
# With PostgreSQL, table-load also reports the cluster's CPU (its
# postmaster's process tree) as "db cpu"; with SQLite that work is in the
# server's own CPU.
#
# Each run's report goes to DIR/load/RUN.txt, each server's log to
# DIR/load/server-RUN[-INSTANCE].log; the commit measured is printed first,
# and the load average at each run's start.
set -euo pipefail
cd "$(dirname "$0")/../.."
port=${1:?PORT}
runs=${2:?RUNS}
shift 2
target_dir=${TARGET_DIR:-target}
server_bin=${SERVER:-$target_dir/release/mille}
load_bin=$target_dir/release/table-load
database=${DATABASE:-sqlite}
instances=${INSTANCES:-1}
case "$database" in
  sqlite | postgres) ;;
  *)
    echo "DATABASE is sqlite or postgres, not $database" >&2
    exit 2
    ;;
esac
if [[ ! $instances =~ ^[12]$ ]]; then
  echo "INSTANCES is 1 or 2, not $instances" >&2
  exit 2
fi
if [[ $instances != 1 && $database != postgres ]]; then
  echo "INSTANCES=$instances needs DATABASE=postgres (instances share a PostgreSQL database)" >&2
  exit 2
fi
# A socket per connection, in both processes.
ulimit -n 20000
out=$target_dir/load
mkdir -p "$out"

# What is left to stop if the script ends early: servers, data
# directories, the cluster.
servers=()
datas=()
pg_dir=
cleanup() {
  for pid in "${servers[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${servers[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  for dir in "${datas[@]}"; do
    rm -rf "$dir"
  done
  if [[ -n $pg_dir ]]; then
    .ci/postgres stop "$pg_dir"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ $database == postgres ]]; then
  # Checked apart from `eval`, which would hide a failed start.
  pg_env=$(.ci/postgres start)
  eval "$pg_env"
  pg_dir=$PGCLUSTER_DIR
  pg_url=$TABLE_SERVER_TEST_POSTGRES
fi

echo "commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates/table-server || echo ' (table-server changed since)'), server $server_bin, $database, $instances instance$([[ $instances == 1 ]] || echo s)"
status=0
for run in $(seq 1 "$runs"); do
  echo "== run $run: load average $(cat /proc/loadavg)"
  database_args=()
  if [[ $database == postgres ]]; then
    psql -q "$pg_url" -c "CREATE DATABASE load_$run"
    database_args=(--database "${pg_url%/*}/load_$run" --lease 5)
  fi
  load_args=()
  if [[ $database == postgres ]]; then
    # PostgreSQL's CPU (the postmaster and its processes) as "db cpu".
    load_args+=(--database-pid "$(head -n 1 "$pg_dir/data/postmaster.pid")")
  fi
  servers=()
  datas=()
  logs=()
  for i in $(seq 0 $((instances - 1))); do
    p=$((port + i))
    if [[ $instances == 1 ]]; then
      log=$out/server-$run.log
    else
      log=$out/server-$run-$((i + 1)).log
    fi
    # A server still stopping holds the port for a moment.
    for _ in $(seq 100); do
      (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || break
      sleep 0.2
    done
    data=$(mktemp -d)
    datas+=("$data")
    # Emptied here, not by the server's redirection, which may come after
    # the first look for "listening" below.
    : >"$log"
    # The generator is one address standing for thousands of players.
    RUST_LOG=warn "$server_bin" serve --listen "127.0.0.1:$p" --no-socket \
      --data "$data" "${database_args[@]}" --bot-delay 0 --hand-pause 0 \
      --uncapped-address 127.0.0.1 >"$log" 2>&1 &
    server=$!
    servers+=("$server")
    logs+=("$log")
    for _ in $(seq 150); do
      grep -q listening "$log" && break
      kill -0 "$server" 2>/dev/null || break
      sleep 0.2
    done
    if ! grep -q listening "$log"; then
      echo "== run $run: the server on port $p did not start"
      cat "$log"
      exit 1
    fi
    load_args+=(--server "ws://127.0.0.1:$p/ws" --server-pid "$server")
  done
  "$load_bin" "${load_args[@]}" "$@" \
    >"$out/$run.txt" 2>"$out/progress-$run.txt" || status=1
  for i in "${!servers[@]}"; do
    server=${servers[$i]}
    if kill -TERM "$server" 2>/dev/null; then
      wait "$server" || true
    else
      wait "$server" && code=0 || code=$?
      echo "== run $run: the server on port $((port + i)) had stopped by itself (exit status $code)"
      tail -n 5 "${logs[$i]}"
      status=1
    fi
  done
  servers=()
  for dir in "${datas[@]}"; do
    rm -rf "$dir"
  done
  datas=()
  echo "== run $run"
  cat "$out/$run.txt"
  tail -n 3 "$out/progress-$run.txt"
done
exit "$status"
