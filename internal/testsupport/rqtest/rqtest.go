// Package rqtest is the ready list's behaviour suite. readyq and
// workqueue both run it, so each behaviour the two share is written once
// and checked on both: Run(t, impl) from a test of each package.
package rqtest

import (
	"context"
	"testing"

	"github.com/evsync/evsync/readyq"
)

// Queue is the ready list's API, as readyq.Queue has it. A workqueue.Queue
// satisfies it through a wrapper whose Stats returns readyq.Stats.
type Queue[T comparable] interface {
	Add(item T) bool
	AddMode(item T, m readyq.Mode) bool
	Wait(ctx context.Context, max int) ([]T, error)
	WaitAppend(ctx context.Context, buf []T, max int) ([]T, error)
	Next(ctx context.Context, done []T, max int) ([]T, error)
	TryTake(max int) []T
	TryTakeAppend(buf []T, max int) []T
	Done(items ...T) int
	Remove(item T) bool
	Rearm(item T) bool
	Close()
	Drain(ctx context.Context) error
	Ready() <-chan struct{}
	Len() int
	InFlight() int
	Stats() readyq.Stats
	String() string
}

// Impl is an implementation under test: how to make its queues, and the
// test hooks of its package (its export_test.go).
type Impl struct {
	Name string // the prefix of its String: "readyq" or "workqueue"

	New           func() Queue[int]                           // New[int]()
	NewWith       func(c readyq.Config[int]) Queue[int]       // NewWithConfig with c's Mode, Recheck and Keep
	NewStringWith func(c readyq.Config[string]) Queue[string] // the same for strings
	Zero          func() Queue[int]                           // a zero Queue[int], not made by New
	ZeroString    func() Queue[string]                        // a zero Queue[string], not made by New
	Slots         func(q Queue[int]) int                      // the size of q's list array
	SetBigBatch   func(n int)                                 // copy hand-outs over n after the unlock (0: the default)
	SetCopyHook   func(f func())                              // run f while a large batch is copied out
	CopiesOutside bool                                        // whether large hand-outs are copied after the unlock
	Entries       func(q Queue[int]) int                      // the entries q holds, kept ones included
}

// Run runs every test of the suite on impl, each as a subtest named as
// its function without "test".
func Run(t *testing.T, impl Impl) {
	for _, c := range []struct {
		name string
		f    func(*testing.T, Impl)
	}{
		{"AddQueuesAtMostOnce", testAddQueuesAtMostOnce},
		{"FIFOByFirstMark", testFIFOByFirstMark},
		{"ZeroValueIsUsable", testZeroValueIsUsable},
		{"MarkWhileInFlightIsKeptAsideAndQueuedAtDone", testMarkWhileInFlightIsKeptAsideAndQueuedAtDone},
		{"KeptAsideMarksReturnInArrivalOrder", testKeptAsideMarksReturnInArrivalOrder},
		{"LevelRoundRobin", testLevelRoundRobin},
		{"LevelRecheckForgetsItemsNoLongerReady", testLevelRecheckForgetsItemsNoLongerReady},
		{"LevelMarkWhileInFlightBeatsRecheck", testLevelMarkWhileInFlightBeatsRecheck},
		{"OneShotDisarmedUntilRearm", testOneShotDisarmedUntilRearm},
		{"OneShotRearmWithoutMarkWaitsForNextMark", testOneShotRearmWithoutMarkWaitsForNextMark},
		{"OneShotRearmWhileInFlight", testOneShotRearmWhileInFlight},
		{"ModeIsFixedWhileKnown", testModeIsFixedWhileKnown},
		{"RemoveWinsOverLaterHandOut", testRemoveWinsOverLaterHandOut},
		{"RemoveInFlightDropsMarkAndForgetsAtDone", testRemoveInFlightDropsMarkAndForgetsAtDone},
		{"ReAddAfterRemoveInFlightIsNotHandedOutTwice", testReAddAfterRemoveInFlightIsNotHandedOutTwice},
		{"DoneOfItemsNotInFlightIsANoOp", testDoneOfItemsNotInFlightIsANoOp},
		{"BadArguments", testBadArguments},
		{"WaitAppendReusesTheBuffer", testWaitAppendReusesTheBuffer},
		{"BlockedWaitAllocatesNothing", testBlockedWaitAllocatesNothing},
		{"WaitBlocksUntilAdd", testWaitBlocksUntilAdd},
		{"StatsCountsBlockedDrains", testStatsCountsBlockedDrains},
		{"WaitersServedInFIFOOrder", testWaitersServedInFIFOOrder},
		{"WaitCanceledLosesNothing", testWaitCanceledLosesNothing},
		{"DoneContextStopsWaits", testDoneContextStopsWaits},
		{"NextWithDoneContextFinishesThenStops", testNextWithDoneContextFinishesThenStops},
		{"CanceledHeadLetsOthersProceed", testCanceledHeadLetsOthersProceed},
		{"GrantRacingCancelIsNotLost", testGrantRacingCancelIsNotLost},
		{"CloseWakesEveryWaiter", testCloseWakesEveryWaiter},
		{"WaitAfterCloseDrainsThenErrClosed", testWaitAfterCloseDrainsThenErrClosed},
		{"WaitAfterCloseWaitsForKeptAsideMarks", testWaitAfterCloseWaitsForKeptAsideMarks},
		{"WaitAfterCloseEndsWhenRemoveDropsTheLastMark", testWaitAfterCloseEndsWhenRemoveDropsTheLastMark},
		{"LevelItemsNotRequeuedAfterClose", testLevelItemsNotRequeuedAfterClose},
		{"RearmAfterCloseIsRefused", testRearmAfterCloseIsRefused},
		{"DrainReturnsWhenNothingQueuedOrInFlight", testDrainReturnsWhenNothingQueuedOrInFlight},
		{"DrainWorksOnClosedQueueAndCancels", testDrainWorksOnClosedQueueAndCancels},
		{"ReadyFiresOnAddAndOnExhaustion", testReadyFiresOnAddAndOnExhaustion},
		{"StatsAndString", testStatsAndString},
		{"NextFinishesThenWaits", testNextFinishesThenWaits},
		{"NextServesBlockedCallersFirst", testNextServesBlockedCallersFirst},
		{"NextWithMaxZeroReturnsDoneUnchanged", testNextWithMaxZeroReturnsDoneUnchanged},
		{"DoneRepeatNeverEndsAnotherConsumersHandOut", testDoneRepeatNeverEndsAnotherConsumersHandOut},
		{"DoneWithRecheckOrdersTheWholeCall", testDoneWithRecheckOrdersTheWholeCall},
		{"DoneWithRecheckAllocatesNothing", testDoneWithRecheckAllocatesNothing},
		{"LargeHandOutIsCopiedOutsideTheLock", testLargeHandOutIsCopiedOutsideTheLock},
		{"SmallBatchesCopiedOutsideTheLockToo", testSmallBatchesCopiedOutsideTheLockToo},
		{"ArrayStaysBoundedInSteadyState", testArrayStaysBoundedInSteadyState},
		{"ConcurrentHandOutsExclusiveAndConserved", testConcurrentHandOutsExclusiveAndConserved},
		{"CloseDuringTrafficReleasesEveryone", testCloseDuringTrafficReleasesEveryone},
		{"SynctestNextAndReadyParkUntilAnAdd", testSynctestNextAndReadyParkUntilAnAdd},
		{"SynctestBubblesShareNothing", testSynctestBubblesShareNothing},
		{"KeepIsForgottenAsSeenFromOutside", testKeepIsForgottenAsSeenFromOutside},
		{"KeepRemoveFreesTheEntries", testKeepRemoveFreesTheEntries},
		{"ChurnOfDistinctItemsLeavesTheHeapBounded", testChurnOfDistinctItemsLeavesTheHeapBounded},
	} {
		t.Run(c.name, func(t *testing.T) { c.f(t, impl) })
	}
}
