//go:build evsynchooks

package poll

import "sync/atomic"

// Point is point as the tests name it, with the points below. They exist
// only in builds with the evsynchooks tag.
type Point = point

const (
	PointWake     = pointWake
	PointHarvest  = pointHarvest
	PointAdd      = pointAdd
	PointModify   = pointModify
	PointUnlocked = pointUnlocked
	PointNest     = pointNest
	PointEnd      = pointEnd
	PointFire     = pointFire
)

// hooked is the function a test registered, or nil (see SetHook).
var hooked atomic.Pointer[func(point)]

// hook calls the registered function on the caller's goroutine.
func hook(p point) {
	if f := hooked.Load(); f != nil {
		(*f)(p)
	}
}

// SetHook registers f to run at every point hook marks, or none if f is
// nil. It exists only in builds with the evsynchooks tag.
func SetHook(f func(point)) {
	if f == nil {
		hooked.Store(nil)
		return
	}
	hooked.Store(&f)
}
