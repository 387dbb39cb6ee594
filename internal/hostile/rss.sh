#!/usr/bin/env bash
# Measures `cortex-tui live --target` against each hostile server of the catalog with GNU time:
# the maximum resident set size and the wall time of a headless run at full scale, and its exit
# status. Prints one markdown table row per server.
#
#   internal/hostile/rss.sh BIN [NAME...]
#
# With RSS_BEFORE=BIN0 (a build of an older commit) each server is measured with BIN0 first,
# then with BIN, and the row shows both.
#
# NAME is a behaviour of the catalog (default: every one, then the two scheme mismatches),
# https-to-plain (an https:// URL to the plain "ok" server) or http-to-tls (http:// to "tls").
#
# RSS_SCENARIO (black-friday), RSS_DURATION (15s) and RSS_ARGS (extra flags) tune the run.
set -euo pipefail
bin=$1; shift
cd "$(dirname "$0")/../.."
scenario=${RSS_SCENARIO:-black-friday}
duration=${RSS_DURATION:-15s}
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/hostile" ./internal/hostile/cmd/hostile
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  mapfile -t names < <("$tmp/hostile" -list | awk '{print $1}')
  names+=(https-to-plain http-to-tls)
fi
before=${RSS_BEFORE:-}
# measure BIN URL: one headless run under GNU time; prints "RSS | wall | exit".
measure() {
  local code
  set +e
  # shellcheck disable=SC2086
  /usr/bin/time -v "$1" live --scenario "$scenario" --target "$2" --headless --duration "$duration" \
    --format json ${RSS_ARGS:-} > /dev/null 2> "$tmp/time.log"
  code=$?
  set -e
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f MB", $2/1024}' "$tmp/time.log")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; printf "%.2f s", s}' "$tmp/time.log")
  grep -v -e '^\s' -e 'Command being timed' -e 'Command exited' "$tmp/time.log" | head -3 | sed "s|^|    $(basename "$1") stderr: |" >&2 || true
  echo "$rss | $wall | $code"
}
if [ -n "$before" ]; then
  echo "| server | URL | max RSS before | wall before | exit before | max RSS | wall | exit |"
  echo "|---|---|---|---|---|---|---|---|"
else
  echo "| server | URL | max RSS | wall | exit |"
  echo "|---|---|---|---|---|"
fi
for name in "${names[@]}"; do
  scheme=""
  case $name in
    https-to-plain) name=ok; scheme=https ;;
    http-to-tls) name=tls; scheme=http ;;
  esac
  : > "$tmp/url"
  "$tmp/hostile" "$name" > "$tmp/url" 2> "$tmp/server.log" &
  srv=$!
  for _ in $(seq 600); do [ -s "$tmp/url" ] && break; sleep 0.05; done
  url=$(cat "$tmp/url")
  if [ -z "$url" ]; then
    echo "| $name | | the server did not start in 30 s | | |"; kill "$srv" 2>/dev/null || true; continue
  fi
  if [ -n "$scheme" ]; then url="$scheme://${url#*://}"; fi
  row="| ${scheme:+$scheme to }$name | ${url%%://*} |"
  if [ -n "$before" ]; then row="$row $(measure "$before" "$url") |"; fi
  row="$row $(measure "$bin" "$url") |"
  kill -INT "$srv"
  if ! wait "$srv"; then
    echo "    hostile $name did not stop cleanly:" >&2; sed 's/^/    /' "$tmp/server.log" | head -60 >&2
  fi
  echo "$row"
done
