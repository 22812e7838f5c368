package semaphore_test

import (
	"context"
	"flag"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/evsync/evsync/semaphore"
)

// eventual runs the suite's limiters, groups and semaphores in the
// eventually fair mode, with the bound fairBound:
//
//	go test ./semaphore -args -eventual
//
// Tests of what only one mode promises make their own, with
// semaphore.NewLimiter and the rest.
var eventual = flag.Bool("eventual", false, "make the suite's limiters eventually fair (WithEventualFairness)")

// fairBound is the bound of the suite's eventually fair limiters.
const fairBound = time.Millisecond

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// modeOpts returns opts with the suite's mode added.
func modeOpts(opts []semaphore.Option) []semaphore.Option {
	if *eventual {
		return append(opts, semaphore.WithEventualFairness(fairBound))
	}
	return opts
}

// newLimiter is semaphore.NewLimiter in the suite's mode.
func newLimiter(n int, opts ...semaphore.Option) *semaphore.Limiter {
	return semaphore.NewLimiter(n, modeOpts(opts)...)
}

// newGroup is semaphore.NewGroup in the suite's mode.
func newGroup(limit int, opts ...semaphore.Option) *semaphore.Group {
	return semaphore.NewGroup(limit, modeOpts(opts)...)
}

// withContext is semaphore.WithContext in the suite's mode.
func withContext(ctx context.Context, limit int, opts ...semaphore.Option) (*semaphore.Group, context.Context) {
	return semaphore.WithContext(ctx, limit, modeOpts(opts)...)
}

// newSemaphore is semaphore.New in the suite's mode.
func newSemaphore(initial uint64, opts ...semaphore.Option) *semaphore.Semaphore {
	return semaphore.New(initial, modeOpts(opts)...)
}
