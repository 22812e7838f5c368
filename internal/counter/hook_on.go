//go:build evsynchooks

package counter

import "sync/atomic"

// hooked is the function a test registered to run at every point; nil if
// none is (see export_hooks_test.go).
var hooked atomic.Pointer[func(point)]

// hook calls the registered function, if any, on the goroutine that
// reached p: built with the evsynchooks tag, a test can stop it there.
func hook(p point) {
	if f := hooked.Load(); f != nil {
		(*f)(p)
	}
}
