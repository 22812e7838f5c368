//go:build evsynchooks

package counter

import "sync/atomic"

// hooked is the function a test registered to run at every point, or nil
// if none is (see SetHook).
var hooked atomic.Pointer[func(Point)]

// hook calls the registered function, if any, on the goroutine that
// reached p. So in a build with the evsynchooks tag, a test can stop the
// goroutine there.
func hook(p point) {
	if f := hooked.Load(); f != nil {
		(*f)(p)
	}
}

// SetHook registers f to run at every point reached, or none if f is nil.
// It exists only in builds with the evsynchooks tag, for window tests (see
// the package gates).
func SetHook(f func(Point)) {
	if f == nil {
		hooked.Store(nil)
		return
	}
	hooked.Store(&f)
}

// Point names a window of the fast paths, the lone slot and the locked
// sections (points.go).
type Point = point

// NPoints is the number of points. Every Point is below it.
const NPoints = int(nPoints)

// The points, for window tests.
const (
	PFastTake      = pFastTake
	PWriteFast     = pWriteFast
	PReadSlow      = pReadSlow
	PSleep         = pSleep
	PLonePublish   = pLonePublish
	PLoneClaimed   = pLoneClaimed
	PLoneReclaim   = pLoneReclaim
	PWriterClaim   = pWriterClaim
	PWriterClaimed = pWriterClaimed
	PLock          = pLock
	PPublish       = pPublish
	PReadyLook     = pReadyLook
	PTryDecide     = pTryDecide
	PWriteRoom     = pWriteRoom
	PSetLimit      = pSetLimit
	PLook          = pLook
	PLookAgain     = pLookAgain
	PJudgeLocked   = pJudgeLocked
	PLockWait      = pLockWait
	PBarge         = pBarge
)
