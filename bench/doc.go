// Package bench holds the benchmarks that compare evsync with libraries
// the main module must not depend on: readyq, evsync's workqueue and
// kube.Queue against client-go's workqueue and controller-runtime's
// priority queue. It is a module of its own
// (github.com/evsync/evsync/bench), so client-go, controller-runtime and
// their dependencies never enter the main module's go.mod or build graph.
// In the repository, go.work serves it the tree, kube included.
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
// crpq_bench_test.go ports controller-runtime's own benchmarks of its
// priority queue, from sigs.k8s.io/controller-runtime v0.25.2:
// BenchmarkAddGetDone, BenchmarkAddOnly and BenchmarkAddLockContended.
// They keep the originals' item counts, loops and 1,000 workers. Comments
// marked "Changed:" name each difference. Each runs kube.Queue
// (impl=evsync, made by kube.NewQueue), controller-runtime's priority
// queue (impl=crpq) and client-go's rate-limiting workqueue
// (impl=clientgo). They call only Add, Get and Done, so every one has a
// client-go row. Run them, 6 interleaved rounds and benchstat, with
//
//	bash scripts/bench-crpq.sh 6 /tmp/crpq-bench.txt
//
// Run every benchmark with
//
//	cd bench && go test -run='^$' -bench=. -benchmem -count=6 -timeout 30m . | tee /tmp/readyq-bench.txt
//	benchstat -col /impl /tmp/readyq-bench.txt
//
// CI runs every case once under the race detector, with -short, which
// keeps the delayed and loaded populations, and the fill of
// BenchmarkAddLockContended, at a thousand items (go test -race -short
// -run=. -bench=. -benchtime=1x).
package bench
