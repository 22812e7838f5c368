#!/usr/bin/env bash
# run.sh TIME [TARGET...]: runs each fuzz target of package fuzz for TIME
# (a Go duration such as 30s or 5m, or a count such as 10000x), one after
# another, and prints each one's executions, new corpus entries and
# result. With no TARGET it runs them all (go test -list '^Fuzz').
#
# FUZZ_PARALLEL sets -parallel (default 1: the machine may be shared);
# FUZZ_MINIMIZE sets -fuzzminimizetime (go test's default, 60s, if unset:
# with one worker, minimising each new corpus entry pauses the fuzzing).
# A crasher is written by go test to fuzz/testdata/fuzz/<Target>/; the
# script goes on with the next target and exits 1 at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${1:-1m}
shift || true
parallel=${FUZZ_PARALLEL:-1}
if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(go test -timeout 5m -list '^Fuzz' ./fuzz | grep '^Fuzz')
fi

logdir=$(mktemp -d "${TMPDIR:-/tmp}/evsync-fuzz.XXXXXX")
summary=()
failed=0
for t in "${targets[@]}"; do
  log="$logdir/$t.log"
  printf '\n== %s for %s (-parallel=%s), log %s\n' "$t" "$fuzztime" "$parallel" "$log"
  status=ok
  # -timeout bounds the whole run: the fuzz time plus the seed corpus and
  # minimisation of a crasher; the engine itself stops an input after 10s.
  if ! go test -run='^$' -fuzz="^$t\$" -fuzztime="$fuzztime" -parallel="$parallel" \
    ${FUZZ_MINIMIZE:+-fuzzminimizetime="$FUZZ_MINIMIZE"} \
    -timeout="${FUZZ_TIMEOUT:-3h}" ./fuzz 2>&1 | tee "$log"; then
    status=FAIL
    failed=1
  fi
  last=$(grep -E 'fuzz: elapsed: .*execs: ' "$log" | tail -n 1 || true)
  execs=$(sed -nE 's/.*execs: ([0-9]+) .*/\1/p' <<<"$last")
  interesting=$(sed -nE 's/.*new interesting: ([0-9]+).*/\1/p' <<<"$last")
  summary+=("$(printf '%-14s %-4s execs=%-12s new-interesting=%-5s %s' "$t" "$status" "${execs:-?}" "${interesting:-?}" "$last")")
done

printf '\n== summary (%s each)\n' "$fuzztime"
printf '%s\n' "${summary[@]}"
exit "$failed"
