// Package fuzz holds evsync's native Go fuzz targets and its
// linearizability checks; it has no API of its own, only tests.
//
// Each fuzz target decodes its input into a configuration and a sequence
// of operations and makes them, one at a time, on a real primitive and on
// its reference model in model, comparing every result:
//
//	FuzzSemaphore  semaphore.Semaphore against model.Counter (NewSemaphore)
//	FuzzSemaphoreEventual
//	               the same, with WithEventualFairness on synctest's fake
//	               clock, against NewEventualSemaphore
//	FuzzLimiter    semaphore.Limiter and its permits against model.Limiter,
//	               with the parked acquirers queued next to it
//	FuzzLimiterEventual
//	               the same, with WithEventualFairness on synctest's fake
//	               clock, against NewEventualLimiter
//	FuzzSignal     signal.Signal against model.Counter (NewSignal)
//	FuzzCoalesce   coalesce.Waker on synctest's fake clock against model.Coalescer
//	FuzzWorkqueue  workqueue.Queue[int] (every mode, with and without a
//	               recheck function, fair share, metrics; delays, priorities
//	               and rate-limited retries on synctest's fake clock) against
//	               model.WorkQueue. readyq's own fuzz target, of its rapid
//	               state machine against model.ReadyQ, is FuzzQueueModel in
//	               package readyq.
//	FuzzKernel     a kernel eventfd (EFD_SEMAPHORE or plain, non-blocking)
//	               against the matching primitive and model (Linux only)
//
// Blocking calls are made only where their outcome is decided
// sequentially: with a nil or an already cancelled context, with a live
// context where the model says the call completes at once, or parked in a
// goroutine of a testing/synctest bubble, where synctest.Wait tells when
// it has settled. The input format is described in decode_test.go; the
// seed corpus under testdata/fuzz covers every operation and every error,
// which TestCorpusCoverage checks. run.sh runs each target in turn.
//
// The linearizability tests record concurrent histories of semaphore,
// limiter (strict and eventually fair), signal, readyq, workqueue and
// poll.Set calls with internal/testsupport/lincheck and check them with
// porcupine against sequential models. For the counters that is the count (with the limit
// and the debt for the semaphore, and the permits given back for the
// limiter). For the two queues it is the queue order, the items in
// flight, their kept-aside marks and (workqueue) the delayed items. For
// poll.Set it is package model's Set over its Counters, stepped on
// copies, with the wakeups still to come.
package fuzz
