#!/usr/bin/env bash
# bench-rounds.sh NAME DIR PKG BENCH BENCHTIME [N [FILE]]: the body that
# bench-limiter.sh, bench-poll.sh and bench-crpq.sh share. It runs go
# test -bench=BENCH in module directory DIR, package PKG, N times with
# -count=1 (default 6), so that a burst of load on the machine falls on
# every impl of a round alike. The results go to FILE (default
# NAME.txt, replaced); the load average before each round goes to
# stderr. Then it prints benchstat -col /impl of FILE, with benchstat
# from PATH if there is one, else golang.org/x/perf's by go run.
#
# The environment's BENCH and BENCHTIME, if set, override the BENCH and
# BENCHTIME arguments.
set -euo pipefail

name=$1 dir=$2 pkg=$3
bench=${BENCH:-$4}
benchtime=${BENCHTIME:-$5}
shift 5
n=${1:-6}
out=${2:-$name.txt}
case $n in
'' | *[!0-9]* | 0)
  echo "$name.sh: N must be a positive number of rounds, not '$n'" >&2
  exit 2
  ;;
esac
case $out in
/*) ;;
*) out=$PWD/$out ;;
esac
cd "$(dirname "$0")/.."

: >"$out"
start=$SECONDS
for i in $(seq "$n"); do
  printf 'round %d/%d at %d s, load average %s\n' "$i" "$n" $((SECONDS - start)) \
    "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)" >&2
  go -C "$dir" test -run='^$' -bench="$bench" -benchmem -count=1 -benchtime="$benchtime" \
    -timeout=30m "$pkg" >>"$out"
done
printf 'done in %d s; results in %s\n\n' $((SECONDS - start)) "$out" >&2

stat=(go run golang.org/x/perf/cmd/benchstat@latest)
if command -v benchstat >/dev/null; then
  stat=(benchstat)
fi
"${stat[@]}" -col /impl "$out"
