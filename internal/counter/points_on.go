//go:build evsynchooks

package counter

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
