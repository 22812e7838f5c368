package workqueue

import "reflect"

// The values of Queue.cfg.keys.
const (
	keysUnknown uint32 = iota // not yet looked at (the zero value)
	keysSafe                  // hashing a T cannot panic
	keysProbed                // T holds an interface: items are probed
)

// checkKey panics, as a map index would, if item cannot be a map key.
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
// reflect tells that once per queue (learnKeys). So queues of other item
// types pay one atomic load per call and no probe. Their test of keysSafe
// is inlined, and probe is not.
func (q *Queue[T]) checkKey(item T) {
	if q.cfg.keys.Load() != keysSafe {
		q.probe(item)
	}
}

// checkKeys is checkKey for each item.
func (q *Queue[T]) checkKeys(items []T) {
	if q.cfg.keys.Load() != keysSafe {
		q.probe(items...)
	}
}

// probe hashes the items if T holds an interface, learning that first if
// need be.
func (q *Queue[T]) probe(items ...T) {
	if q.cfg.keys.Load() == keysUnknown && q.learnKeys() == keysSafe {
		return
	}
	var m map[T]struct{}
	for _, item := range items {
		_ = m[item] // hashes item: a nil map does too (go.dev/issue/23734)
	}
}

// learnKeys decides keys. Callers racing on a new queue store the same
// value, so no lock is needed.
func (q *Queue[T]) learnKeys() uint32 {
	k := keysSafe
	if hashMayPanic(reflect.TypeFor[T]()) {
		k = keysProbed
	}
	q.cfg.keys.Store(k)
	return k
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
