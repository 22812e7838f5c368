// Package bench holds the benchmarks that compare evsync with libraries
// the main module must not depend on: readyq against client-go's
// workqueue. It is a module of its own (github.com/evsync/evsync/bench,
// with a replace directive pointing at the main module), so client-go and
// its dependencies never enter the main module's go.mod or build graph.
// Its import path lies under github.com/evsync/evsync, so it may use the
// main module's internal packages (the shared anchors and drivers).
//
// Run it with
//
//	cd bench && go test -run='^$' -bench=. -benchmem -count=6 -timeout 30m . | tee /tmp/readyq-bench.txt
//	benchstat -col /impl /tmp/readyq-bench.txt
package bench
