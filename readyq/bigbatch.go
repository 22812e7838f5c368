//go:build !readyq_copyall

package readyq

// copyOutside is whether a hand-out over bigBatch items is copied after
// the unlock. With every hand-out copied under the lock, an Add made while
// a consumer takes 100,000 items at once waits behind the copy
// (bench/, BenchmarkAddLatency). Build with -tags readyq_copyall for that
// simpler twin, to compare.
const copyOutside = true
