package rq

import (
	"reflect"
	"sync/atomic"
)

// Keys is a queue's key check. It is read and written without the lock.
// The zero value has not looked at T yet.
type Keys[T comparable] struct {
	state atomic.Uint32 // one of the values below
}

// The values of Keys.state.
const (
	keysUnknown uint32 = iota // not yet looked at (the zero value)
	keysSafe                  // hashing a T cannot panic
	keysProbed                // T holds an interface: items are probed
)

// Check panics, as a map index would, if item cannot be a map key.
// Callers call it before they take the lock.
//
// The queue's index (index.go) hashes items as a Go map hashes its keys.
// Hashing a value whose dynamic type is not hashable panics. Such a value
// is a slice, map or func in an interface, directly or in a struct or
// array field. The queue hashes items under its lock. There a panic would
// leave the lock held for good. In the middle of a Done, it would also
// leave items half finished. So every call that looks an item up probes
// its items first, before it takes the lock or changes anything. A lookup
// in a nil map hashes the key as the queue's index would. It panics with
// the runtime's own error ("hash of unhashable type …"). After the probe,
// no hashing under the lock can panic. That is cheaper than a deferred
// unlock plus an undo of a half-made Done.
//
// Only item types that are or hold an interface can fail to hash. Package
// reflect tells that once per queue (learn). So queues of other item
// types pay one atomic load per call and no probe. Their test of keysSafe
// is inlined, and probe is not.
func (k *Keys[T]) Check(item T) {
	if k.state.Load() != keysSafe {
		k.probe(item)
	}
}

// CheckAll is Check for each item.
func (k *Keys[T]) CheckAll(items []T) {
	if k.state.Load() != keysSafe {
		k.probe(items...)
	}
}

// Probes reports whether items are probed: whether T holds an interface.
func (k *Keys[T]) Probes() bool {
	if k.state.Load() == keysUnknown {
		k.learn()
	}
	return k.state.Load() == keysProbed
}

// probe hashes the items if T holds an interface, learning that first if
// need be.
func (k *Keys[T]) probe(items ...T) {
	if k.state.Load() == keysUnknown && k.learn() == keysSafe {
		return
	}
	var m map[T]struct{}
	for _, item := range items {
		_ = m[item] // hashes item: a nil map does too (go.dev/issue/23734)
	}
}

// learn decides the state. Callers racing on a new queue store the same
// value, so no lock is needed.
func (k *Keys[T]) learn() uint32 {
	v := keysSafe
	if hashMayPanic(reflect.TypeFor[T]()) {
		v = keysProbed
	}
	k.state.Store(v)
	return v
}

// hashMayPanic reports whether hashing a value of type t can panic. That
// is when t is an interface or has one among its fields or elements.
func hashMayPanic(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Array:
		return hashMayPanic(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hashMayPanic(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}
