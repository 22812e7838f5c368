#!/usr/bin/env bash
# bench-limiter.sh [N [FILE]]: the Limiter's contended benchmarks, N
# interleaved rounds, summarised by benchstat.
#
# It runs these benchmarks of package semaphore, each impl (evsync,
# evsync-eventual, xsync, chan, fifo) in the same run:
#   - BenchmarkReleaseThenWork: jackc/puddle issue #46's shape, with its
#     floor (floor-ns/op) and the ratio to it (x-floor)
#   - BenchmarkGrid: cockroachdb/crlib's workers × capacity rows
#   - BenchmarkLimiterContended: the standing contended rows
#   - BenchmarkLimiterAcquireRelease: one goroutine, no contention
# The contended ones report max-wait-ns and p99-wait-ns, the longest and
# the 99th percentile wait of an Acquire, and waited-%, the share of
# acquires that waited 1µs or more (near 0 when the run formed no
# queue). LimiterContended and Grid time one acquire in 16, so that the
# clock reads do not swamp their ns/op.
#
# A round is one go test with -count=1. The script runs N rounds (default
# 6, the fewest for benchstat's confidence intervals), so that a burst of
# load on the machine falls on every impl alike. It writes them all to
# FILE (default bench-limiter.txt, replaced), prints the load average
# before each round on stderr, and then prints benchstat -col /impl of
# FILE. Compare two files with benchstat old.txt new.txt.
#
# Environment: BENCHTIME is go test's -benchtime (default 300ms; six
# rounds then take about 7 minutes on 2 cores), BENCH overrides -bench.
# The script uses benchstat from PATH if there is one, else
# go run golang.org/x/perf/cmd/benchstat@latest.
set -euo pipefail

exec bash "$(dirname "$0")/bench-rounds.sh" bench-limiter . ./semaphore '^Benchmark(ReleaseThenWork|Grid|LimiterContended|LimiterAcquireRelease)$' 300ms "$@"
