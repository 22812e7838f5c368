// Package anchor holds the implementations evsync is measured against, each
// behind one small interface shared by the benchmarks and cmd/evbench: a
// semaphore (evsync's, golang.org/x/sync's Weighted, a buffered channel, a
// sync.Cond and the kernel's eventfd in semaphore mode) and a sum-and-reset
// signal (evsync's, an atomic counter with a one-slot token channel, a
// sync.Cond and the kernel's plain eventfd).
//
// The anchors are written the way a careful Go programmer would write them
// by hand, not tuned to lose. They are test fixtures: they panic on misuse
// that the benchmarks never commit, rather than return errors.
//
// Every anchor honours a context that can end, which the benchmarks'
// ctx=cancel cases pass: the channel semaphore and the token signal select
// on ctx.Done() (a plain send or receive when Done is nil), x/sync selects
// on its own, the sync.Cond anchors register a context.AfterFunc that
// broadcasts (allocations and a lock of the context per wait), and the
// eventfd anchors poll the descriptor instead of blocking in read(2).
//
// The eventfd anchors exist only on Linux; elsewhere their constructors
// fail with errors.ErrUnsupported and callers skip them.
package anchor

import (
	"context"
	"fmt"
)

// Semaphore is a counting semaphore built with a limit of L units, all of
// them available at first: Acquire takes units, Release gives them back.
type Semaphore interface {
	// Acquire waits until n units can be taken and takes them. It returns
	// nil on success or ctx.Err() if ctx ends first, having taken nothing.
	Acquire(ctx context.Context, n uint64) error
	// TryAcquire takes n units if it can do so without waiting and
	// reports whether it did.
	TryAcquire(n uint64) bool
	// Release gives back n units taken earlier. Releasing units that are
	// not held is a programming error; implementations may panic.
	Release(n uint64)
	// Close releases the resources behind the semaphore (the eventfd's
	// file descriptor). Nobody may be waiting in Acquire when it is called.
	Close() error
}

// Signal is a sum-and-reset notifier: writers add to a count, a reader
// takes the whole count at once.
type Signal interface {
	// Add adds n to the count and wakes a waiting reader. It never blocks.
	Add(n uint64)
	// Wait waits until the count is non-zero, then takes all of it. It
	// returns the sum and nil, or 0 and ctx.Err() if ctx ends first.
	Wait(ctx context.Context) (uint64, error)
	// Take takes the whole count without waiting; 0 if there is nothing.
	Take() uint64
	// Close releases the resources behind the signal (the eventfd's file
	// descriptor). Nobody may be waiting in Wait when it is called.
	Close() error
}

// SemaphoreImpl names a semaphore implementation and builds instances.
type SemaphoreImpl struct {
	// Name is the value of the impl= key in benchmark names: "evsync",
	// "xsync", "chan", "cond" or "eventfd".
	Name string
	// New returns a semaphore of limit units, all available. It returns
	// errors.ErrUnsupported where the implementation does not exist
	// (eventfd off Linux) and an error for a limit it cannot hold.
	New func(limit uint64) (Semaphore, error)
}

// SignalImpl names a signal implementation and builds instances.
type SignalImpl struct {
	// Name is the value of the impl= key in benchmark names: "evsync",
	// "atomictoken", "cond" or "eventfd".
	Name string
	// New returns a signal with a count of 0. It returns
	// errors.ErrUnsupported where the implementation does not exist.
	New func() (Signal, error)
}

// Semaphores lists every semaphore implementation, evsync first.
func Semaphores() []SemaphoreImpl {
	return []SemaphoreImpl{
		{"evsync", NewEvsyncSemaphore},
		{"xsync", NewXSyncSemaphore},
		{"chan", NewChanSemaphore},
		{"cond", NewCondSemaphore},
		{"eventfd", NewEventfdSemaphore},
	}
}

// FloorSemaphores lists the semaphores that measure a floor rather than
// an alternative a user would pick: the minimal mutex-and-channel FIFO.
// The benchmarks that need a floor run them beside Semaphores.
func FloorSemaphores() []SemaphoreImpl {
	return []SemaphoreImpl{{"fifo", NewFIFOSemaphore}}
}

// Signals lists every signal implementation, evsync first.
func Signals() []SignalImpl {
	return []SignalImpl{
		{"evsync", NewEvsyncSignal},
		{"atomictoken", NewTokenSignal},
		{"cond", NewCondSignal},
		{"eventfd", NewEventfdSignal},
	}
}

// errLimit reports a limit an implementation cannot represent.
func errLimit(impl string, limit uint64) error {
	return fmt.Errorf("anchor: %s semaphore cannot hold a limit of %d", impl, limit)
}
