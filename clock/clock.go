// Package clock says what evsync asks of a clock, so that a test can pass
// a fake one. workqueue, coalesce and signal wait on time. Each takes a
// Clock through its WithClock option, and kube through Config.Clock.
// Without the option they use package time.
//
// k8s.io/utils/clock's clocks satisfy Clock as they are. So do its fakes
// and the clock of client-go's queue configs. Their NewTimer returns that
// module's clock.Timer, and Go infers it as T:
//
//	fake := testingclock.NewFakeClock(time.Now())
//	w := coalesce.New(5*time.Millisecond, coalesce.WithClock(fake))
//	q := workqueue.New[string](workqueue.WithClock(fake))
//
// Inside a testing/synctest bubble no fake clock is needed. The wall
// clock there is the bubble's, and evsync's timers run on it.
package clock

import "time"

// A Timer is a one-shot timer made by a Clock's NewTimer.
//   - C delivers a time once the timer fires.
//   - Stop keeps a timer that has not fired from firing. It reports
//     whether the call stopped it. evsync stops every timer it stops
//     reading.
//
// Reset is not asked for. evsync makes a new timer instead.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
}

// A Clock tells the time and makes timers whose type is T.
//
// On a Clock given with WithClock, every armed timer has one goroutine
// waiting on its C. The goroutine ends when the timer fires or is
// stopped. So a test that checks for leaked goroutines must move the
// clock past the last timer, or close the primitive, before it checks.
type Clock[T Timer] interface {
	Now() time.Time
	NewTimer(d time.Duration) T
}
