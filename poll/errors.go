package poll

import (
	"reflect"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/internal/watch"
)

// invalid returns an error that says what was wrong with a call's
// arguments and matches ErrInvalid with errors.Is (evserr.Invalid).
func invalid(format string, args ...any) error { return evserr.Invalid("poll", format, args...) }

// errWaitNilCtx is Wait's error for a nil context, built once.
var errWaitNilCtx = invalid("wait: nil context")

// badMax is Wait's error for a max ≤ 0.
func badMax(max int) error { return invalid("wait: max %d is below 1", max) }

// badInterest explains why events and m are not what Add and Modify
// (op) take: events other than In, Out or both, or a mode that is none
// of the three.
func badInterest(op string, events Events, m Mode) error {
	switch {
	case events == 0:
		return invalid("%s: events none: ask for In, Out or both", op)
	case events&^(In|Out) != 0:
		return invalid("%s: events %v: only In and Out can be asked for (Hup is reported anyway)", op, events)
	default:
		return invalid("%s: %v is not Edge, Level or OneShot", op, m)
	}
}

// badSource explains why src is not a source, for the call op. known
// says whether src is of a source type (then it is a nil pointer).
func badSource(op string, src any, known bool) error {
	switch {
	case src == nil:
		return invalid("%s: nil source", op)
	case known:
		return invalid("%s: nil %T", op, src)
	}
	if t, ok := watch.Embedded(src); ok {
		return invalid("%s: %T is not a source, though it embeds %v: pass that instead", op, src, t)
	}
	if t := reflect.TypeOf(src); t.Kind() != reflect.Pointer {
		if _, ok := watch.Of(reflect.New(t).Interface()); ok {
			return invalid("%s: %T is not a source, *%T is: pass a pointer", op, src, src)
		}
	}
	return invalid("%s: %T is not a source", op, src)
}

// badLoop is Add's error for a Set that would make a loop.
func badLoop(src any, self bool) error {
	if self {
		return invalid("add: a Set cannot be added to itself")
	}
	return invalid("add: %T holds this Set, directly or through others: adding it would make a loop", src)
}
