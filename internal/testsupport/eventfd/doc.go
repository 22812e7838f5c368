// Package eventfd is a thin wrapper over a Linux kernel eventfd(2): open
// one with an initial count, in semaphore mode or not, blocking or not;
// write to it, read from it, poll it without waiting and read its count
// from /proc/self/fdinfo without changing it.
//
// It is the real thing that evsync's counters mirror: the differential
// tests compare them with it call for call, and benchmarks can measure
// them against it. Errors are therefore given in evsync's terms: EAGAIN is
// evserr.ErrWouldBlock and EINVAL is evserr.ErrInvalid, the very values that
// every evsync package re-exports, so a test can compare them with ==.
// Every other failure is returned as an *os.SyscallError.
//
// The package is empty on other systems.
package eventfd
