// Package bench holds the benchmarks that compare evsync with libraries
// the main module must not depend on: readyq and evsync's workqueue
// against client-go's workqueue and controller-runtime's priority queue. It is a module of
// its own (github.com/evsync/evsync/bench), so client-go,
// controller-runtime and their dependencies never enter the main module's
// go.mod or build graph. In the repository, go.work serves it the tree.
// Its import path lies under github.com/evsync/evsync, so it may use the
// main module's internal packages (the shared anchors and drivers).
//
// readyq_bench_test.go runs the main module's ready-queue benchmarks
// (readyq as impl=evsync, evsync's workqueue as impl=wq, the mutex queue
// and a channel) with client-go's plain workqueue added (impl=clientgo).
// ctrlqueue_bench_test.go (BenchmarkCtrl...) compares evsync's
// workqueue as a controller work queue (delays, Get/Done, idle cost) with client-go's
// rate-limiting workqueue and controller-runtime's priority queue
// (impl=evsync, impl=clientgo, impl=ctrlruntime); each benchmark's doc
// comment describes its shape.
//
// Run it with
//
//	cd bench && go test -run='^$' -bench=. -benchmem -count=6 -timeout 30m . | tee /tmp/readyq-bench.txt
//	benchstat -col /impl /tmp/readyq-bench.txt
//
// CI runs every case once under the race detector, with -short, which
// keeps the delayed and loaded populations at a thousand items (go test
// -race -short -run=. -bench=. -benchtime=1x).
package bench
