//go:build evsynchooks

package counter

// Point names a window of the fast paths and the lone slot (points.go).
type Point = point

// The points, for the tests in hooks_test.go.
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
	PSettled       = pSettled
	PDebtLook      = pDebtLook
	POverLimit     = pOverLimit
)

// SetHook registers f to run at every point reached (nil: none).
func SetHook(f func(Point)) {
	if f == nil {
		hooked.Store(nil)
		return
	}
	hooked.Store(&f)
}
