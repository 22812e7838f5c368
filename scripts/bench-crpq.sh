#!/usr/bin/env bash
# bench-crpq.sh [N [FILE]]: controller-runtime's three priority-queue
# benchmarks, ported into bench/, N interleaved rounds, summarised by
# benchstat.
#
# It runs these benchmarks of the bench module (bench/crpq_bench_test.go),
# each impl (evsync, crpq, clientgo) in the same run:
#   - BenchmarkAddGetDone: add 1,000 keys, then Get and Done each
#   - BenchmarkAddOnly: add the same 1,000 keys again and again
#   - BenchmarkAddLockContended: add 1,000 keys to a queue of a million
#     that 1,000 workers take from
# impl=evsync is kube.Queue, impl=crpq controller-runtime's priority
# queue at the version bench requires, impl=clientgo client-go's
# rate-limiting workqueue.
#
# A round is one go test with -count=1. The script runs N rounds (default
# 6, the fewest for benchstat's confidence intervals), so that a burst of
# load on the machine falls on every impl alike. It writes them all to
# FILE (default bench-crpq.txt, replaced), prints the load average
# before each round on stderr, and then prints benchstat -col /impl of
# FILE. Compare two files with benchstat old.txt new.txt.
#
# Environment: BENCHTIME is go test's -benchtime (default 1s, the
# originals'; six rounds then take about 3 minutes on 2 cores), BENCH
# overrides -bench. The script uses benchstat from PATH if there is one,
# else go run golang.org/x/perf/cmd/benchstat@latest.
set -euo pipefail

exec bash "$(dirname "$0")/bench-rounds.sh" bench-crpq bench . '^Benchmark(AddGetDone|AddOnly|AddLockContended)$' 1s "$@"
