package poll

import (
	"context"
	"sync/atomic"

	"github.com/evsync/evsync/internal/watch"
)

// A Done is a source that reports In|Hup once its context is done, as a
// closed source does: a receive from ctx.Done() no longer blocks. Before
// that it reports nothing.
//
// It learns of the end through context.AfterFunc. So no goroutine runs
// for it while the context lives, and one runs briefly when it ends,
// which wakes the Sets that wait for it. Its events hold from the moment
// that function runs, a little after ctx.Err() turns non-nil.
//
// A Done of a context that never ends, such as context.Background(),
// never reports anything and costs nothing. Stop releases the function
// that AfterFunc registered, for a Done no longer needed whose context
// lives on.
type Done struct {
	_     noCopy
	list  watch.List
	armed atomic.Int32
	done  atomic.Bool
	stop  func() bool
}

// OnDone returns a Done of ctx. If ctx is done already, the Done reports
// In|Hup at once. A nil ctx makes a Done that Add refuses with
// ErrInvalid.
func OnDone(ctx context.Context) *Done {
	d := new(Done)
	switch {
	case ctx == nil:
	case ctx.Err() != nil:
		// Done already: AfterFunc would run end in a goroutine of its own,
		// maybe after an Add and a Wait that should have seen the end.
		d.done.Store(true)
		d.stop = ended
	default:
		d.stop = context.AfterFunc(ctx, d.end)
	}
	return d
}

// ended is the stop function of a Done whose context was done already:
// there is no function to keep from running.
func ended() bool { return false }

// end is the AfterFunc's function: the context is done.
func (d *Done) end() {
	d.done.Store(true) // before the load: an Add that arms after it polls and sees done
	hook(pointEnd)
	if d.armed.Load() != 0 {
		d.list.Wake(watch.In | watch.Hup)
	}
}

// Stop releases the function that OnDone registered with the context, as
// the stop function of context.AfterFunc does. It reports whether it kept
// that function from running. After a Stop that reports true, the Done
// never reports anything. Stop of a Done made of a nil context, or of a
// context done already, reports false: OnDone registered no function.
// So does Stop of a nil *Done.
func (d *Done) Stop() bool {
	if d == nil || d.stop == nil {
		return false
	}
	return d.stop()
}

// doneSource is a Done as a watch.Source.
type doneSource struct{ d *Done }

// Watchers returns the Done's watch list.
func (x doneSource) Watchers() *watch.List { return &x.d.list }

// Arm counts the Done's armed registrations.
func (x doneSource) Arm(d int) { x.d.armed.Add(int32(d)) }

// Poll reports In|Hup once the context's end was seen.
func (x doneSource) Poll() watch.Events {
	if x.d.done.Load() {
		return watch.In | watch.Hup
	}
	return 0
}
