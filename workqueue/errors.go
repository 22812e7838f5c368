package workqueue

import "fmt"

// invalid returns an error that says what was wrong with a call's
// arguments and matches ErrInvalid with errors.Is. Only error paths call
// it, so a call that succeeds allocates nothing for it.
func invalid(format string, args ...any) error {
	return fmt.Errorf("workqueue: %s: %w", fmt.Sprintf(format, args...), ErrInvalid)
}

// The errors for a nil context. Each is built once, so that returning
// one allocates nothing and adds no call to the caller.
var (
	errWaitNilCtx       = invalid("wait: nil context")
	errWaitAppendNilCtx = invalid("wait append: nil context")
	errNextNilCtx       = invalid("next: nil context")
	errDrainNilCtx      = invalid("drain: nil context")
)

// badMax explains the ErrInvalid of a max ≤ 0 given to the call op. It
// is never inlined, so that its formatting stays out of the calls that
// check max: they pay one test and keep their size.
//
//go:noinline
func badMax(op string, max int) error {
	return invalid("%s: max %d is not above 0", op, max)
}
