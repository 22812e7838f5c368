//go:build !workqueue_copyall

package workqueue

// copyOutside is whether a hand-out over bigBatch items is copied after
// the unlock. With every hand-out copied under the lock, an Add made while
// a consumer takes 100,000 items at once waits behind the copy. It then
// takes 150 times as long (bench/, BenchmarkAddLatency). Build with -tags
// workqueue_copyall for that simpler twin, to compare.
const copyOutside = true
