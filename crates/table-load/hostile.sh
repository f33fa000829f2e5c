#!/usr/bin/env bash
# The hostile-client run: a release server plays TABLES tables at one move
# a second each (table-load, from 127.0.0.1, held to no per-address cap)
# while one stranger (table-hostile, from 127.0.0.2) opens every connection
# it can, floods list without reading and registers names for SECONDS
# seconds. Then it checks that the server serves newcomers again, from the
# stranger's own address too.
#
#   crates/table-load/hostile.sh PORT [TABLES] [SECONDS]
#
# Build first: cargo build --release -p mille -p table-load. Reports go to
# target/load/hostile-*.txt; the commit measured is printed first. Exits 1
# if the playing tables saw an error or newcomers were not served.
set -euo pipefail
cd "$(dirname "$0")/../.."
port=${1:?PORT}
tables=${2:-500}
attack=${3:-60}
bin=target/release
out=target/load
mkdir -p "$out"
echo "commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates || echo ' (with changes)')"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
data=$(mktemp -d)
server=
cleanup() {
  [[ -n $server ]] && kill "$server" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$data"
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)"
RUST_LOG=warn "$bin/mille" serve --listen "127.0.0.1:$port" --no-socket --data "$data" \
  --bot-delay 0 --hand-pause 0 --uncapped-address 127.0.0.1 >"$out/hostile-server.log" 2>&1 &
server=$!
for _ in $(seq 100); do
  grep -q listening "$out/hostile-server.log" && break
  sleep 0.2
done
ramp=20
# The tables play before, during and after the attack.
total=$((ramp + 10 + attack + 20))
"$bin/table-load" --server "ws://127.0.0.1:$port/ws" --tables "$tables" --interval-ms 1000 \
  --seconds "$((total - ramp))" --ramp-seconds "$ramp" --server-pid "$server" \
  >"$out/hostile-load.txt" 2>&1 &
load=$!
sleep $((ramp + 10))
"$bin/table-hostile" --server "127.0.0.1:$port" --from 127.0.0.2 --seconds "$attack" \
  >"$out/hostile-attacker.txt"
echo "the attacker: $(cat "$out/hostile-attacker.txt")"
# Newcomers, from the attacker's address and another.
served=0
for from in 127.0.0.2 127.0.0.3; do
  if curl -s -m 5 --interface "$from" "http://127.0.0.1:$port/health" | grep -q '"ok"'; then
    served=$((served + 1))
  fi
done
echo "newcomers served after the attack: $served of 2"
"$bin/table-load" --server "ws://127.0.0.1:$port/ws" --tables 10 --interval-ms 200 \
  --seconds 5 --ramp-seconds 1 >"$out/hostile-newcomers.txt" 2>&1 && newcomers=ok || newcomers=failed
echo "ten new tables after the attack: $newcomers"
status=0
wait "$load" || status=$?
echo "the playing tables (table-load, exit $status):"
cat "$out/hostile-load.txt"
grep -c "WARN" "$out/hostile-server.log" | sed 's/^/server log warn lines: /'
[[ $status == 0 && $served == 2 && $newcomers == ok ]]
