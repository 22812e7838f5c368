//go:build linux

package poll_test

import (
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// skipFewFiles skips b if the process may not open n more files.
func skipFewFiles(b *testing.B, n int) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < uint64(n)+64 {
		b.Skipf("RLIMIT_NOFILE is %d: too few files for %d eventfds", lim.Cur, n)
	}
}

// cpuTime returns the CPU time (user and system) the process has used so
// far, every thread counted, and true.
func cpuTime() (time.Duration, bool) { return rusage(unix.RUSAGE_SELF) }

// threadTime returns the CPU time the calling thread has used so far, and
// true. The caller locks its goroutine to the thread.
func threadTime() (time.Duration, bool) { return rusage(unix.RUSAGE_THREAD) }

func rusage(who int) (time.Duration, bool) {
	var ru unix.Rusage
	if err := unix.Getrusage(who, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// pause sleeps for up to d in nanosleep(2), as a raw system call: the Go
// scheduler sees a goroutine that runs on, as one busy with other work
// would, and pays nothing for it. A signal may end it early. (A Go timer
// shorter than a millisecond sleeps a millisecond when nothing else runs,
// and a nanosleep through package syscall or unix hands the goroutine's P
// over to another thread while it sleeps: each costs more than a write.)
func pause(d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
}
