package counter

// A point names one of the narrow windows of the fast paths, the lone slot
// and the locked sections. A window is a moment between a look at the
// word and the step that acts on what it saw. Another goroutine's
// operation may land there. Each point is marked in the code by a call
// hook(p), which a normal build compiles to nothing (hook.go). In a build
// with the tag evsynchooks, a test can stop a goroutine there. It then
// runs the other side's operation and lets the goroutine go on (hook_on.go,
// hooks_test.go).
type point uint8

const (
	pFastTake      point = iota // tryFast: the count can be taken, before the CAS that takes it
	pWriteFast                  // Write: the count has room, before the CAS that adds
	pReadSlow                   // Read: the fast path failed, before the lone slot or the locked re-check
	pSleep                      // a wait: the record is parked (lone or queued), before Sleep
	pLonePublish                // loneSlot.park: before the one-CAS publish 0 → lone|busy
	pLoneClaimed                // loneSlot.park: the record is claimed (busy) and armed, before it is published
	pLoneReclaim                // finishLone: the word is read, before the take-back CAS (its context may have ended)
	pWriterClaim                // handLone: the writer read lone|busy, before its claim CAS
	pWriterClaimed              // handLone: the writer owns the record, before it looks at the context
	pLock                       // lock: the word is read, before the CAS that sets slow or moves the lone reader
	pPublish                    // publish (unlock): the word is read, before the CAS that writes it back
	pReadyLook                  // Ready: the lock-free look found nothing, before the locked arming
	pTryDecide                  // TryRead: the fast path failed, before it decides whether to lock
	pWriteRoom                  // writeLocked: in the locked section, before the room is judged
	pSetLimit                   // SetLimit: the new limit is stored, the count not yet published
	pLook                       // look: the word is read, before the limit is (a SetLimit here pairs them wrongly unless the look notices)
	pLookAgain                  // look: the limit is read, before the word is read again
	pJudgeLocked                // within: the look could not vouch, before the locked judgement
	pLockWait                   // lock: before it takes mu (a caller stopped here waits for the section under way)
	pBarge                      // barge: the oldest reader's age is judged, before the CAS that takes ahead of it
	nPoints                     // the number of points
)
