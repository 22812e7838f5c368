#!/usr/bin/env bash
# bench-poll.sh [N [FILE]]: poll's benchmarks, N interleaved rounds,
# summarised by benchstat. The README's poll figures come from it.
#
# Each benchmark runs its impls in the same round:
#   - WaitOneReady: one ready source among n registered (evsync, reflect,
#     fanin, epoll), n = 10 to 100,000
#   - CrossWake: a write in one goroutine, the Wait's return in another,
#     as a ping-pong, with p50-ns and p99-ns (evsync, chan-pingpong,
#     fanin, epoll)
#   - SourceWake: a user's Source against a Signal, write then TryWait
#   - DeadlineExpiry: 100,000 Deadlines expiring, ns per expiry and the
#     timers armed
#   - MemoryPerSource: bytes per registration, per source kind
#   - Burst: CPU per event at 10^4 writes/s, with and without WithBurst
#   - QueuedWrite, WaiterShare: a write to a queued source; how FIFO
#     shares events among four waiters
#
# A round is one go test with -count=1, so that a burst of load on the
# machine falls on every impl alike. N is 6 by default, the fewest for
# benchstat's confidence intervals. FILE (default bench-poll.txt) is
# replaced. The load average is printed before each round on stderr.
#
# Environment: BENCHTIME is go test's -benchtime (default 300ms), BENCH
# overrides -bench. The script uses benchstat from PATH if there is one,
# else go run golang.org/x/perf/cmd/benchstat@latest.
set -euo pipefail

exec bash "$(dirname "$0")/bench-rounds.sh" bench-poll . ./poll '.' 300ms "$@"
