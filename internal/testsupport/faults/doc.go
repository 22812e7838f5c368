// Package faults holds evsync's fault-injection tests; it has no API of
// its own, only tests.
//
// Where the hammer tests of each package check one primitive under a
// realistic mix of calls, these tests aim at the moments where a
// primitive is most likely to lose something:
//
//   - cancellation storms: every blocking call made under contexts that
//     end before the call, while it waits, or just as a grant is on its
//     way to it, mixed with the non-blocking calls;
//   - Close racing with each operation in turn, released together from a
//     start barrier;
//   - counts at the edge: counters starting at the eventfd maximum
//     (1<<64-2), limits at that maximum, and adds or releases of 1 and of
//     the maximum;
//   - a consumer callback that panics (readyq's recheck function).
//
// Each test checks conservation exactly (nothing lost, nothing read
// twice), with sums kept in 128 bits where they can pass 1<<64, and that
// every goroutine it started has returned: a watchdog turns a hang into a
// failure that says what was stuck, and goleak checks the package at the
// end. The watchdog is a failure detector, never a synchronisation device:
// the tests order their steps with channels, barriers and testing/synctest.
package faults
