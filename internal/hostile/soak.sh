#!/usr/bin/env bash
# A memory soak of `cortex-tui live --target`: the embedded target alone (`cortex-tui target`) as
# the service, live/testdata/soak-six-faults.toml (black-friday's traffic through six faults in
# turn, 300 s) sent to it through the fault proxy, headless. Prints the live process's resident
# set (VmRSS) every SOAK_EVERY seconds (default 10), then GNU time's maximum RSS and wall time.
#
#   internal/hostile/soak.sh BIN
set -euo pipefail
bin=$1
cd "$(dirname "$0")/../.."
every=${SOAK_EVERY:-10}
scn=live/testdata/soak-six-faults.toml
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
"$bin" target --scenario-file "$scn" --addr 127.0.0.1:0 > "$tmp/target" 2>&1 &
for _ in $(seq 100); do grep -q "listening on" "$tmp/target" 2>/dev/null && break; sleep 0.05; done
url=$(grep -o 'http://[0-9.:]*' "$tmp/target" | head -1)
/usr/bin/time -v "$bin" live --scenario-file "$scn" --target "$url" --headless --format table \
  > "$tmp/out" 2> "$tmp/time" &
timepid=$!
sleep 0.5
pid=$(pgrep -P "$timepid" | head -1)
echo "| t (s) | RSS |"
echo "|---|---|"
t=0
while kill -0 "$pid" 2>/dev/null; do
  rss=$(awk '/VmRSS/ {printf "%.0f MB", $2/1024}' "/proc/$pid/status" 2>/dev/null || true)
  [ -n "$rss" ] && echo "| $t | $rss |"
  sleep "$every"; t=$((t + every))
done
wait "$timepid" || true
awk -F': ' '/Maximum resident set size/ {rss=$2} /Elapsed \(wall clock\)/ {wall=$2}
  END {printf "max RSS %.0f MB, wall %s\n", rss/1024, wall}' "$tmp/time"
grep -E 'success rate|failures by cause' "$tmp/out" || true
grep '^cortex-tui:' "$tmp/time" || true
