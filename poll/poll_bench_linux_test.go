//go:build linux

package poll_test

import (
	"encoding/binary"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// benchEpoll is BenchmarkWaitOneReady's impl=epoll: n non-blocking
// eventfds in an epoll instance, edge-triggered, with a write(2),
// epoll_wait(2) with maxevents 1, and a read(2) per op. It skips the run
// if the process may not open n files.
func benchEpoll(b *testing.B, n int) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < uint64(n)+64 {
		b.Skipf("RLIMIT_NOFILE is %d: too few files for %d eventfds", lim.Cur, n)
	}
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(ep)
	fds := make([]int, n)
	for i := range fds {
		fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
		if err != nil {
			b.Fatal(err)
		}
		defer unix.Close(fd)
		fds[i] = fd
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLET, Fd: int32(i)}
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			b.Fatal(err)
		}
	}
	one := binary.NativeEndian.AppendUint64(nil, 1)
	var got [8]byte
	events := make([]unix.EpollEvent, 1)
	b.ReportAllocs()
	i, ops, cpu := 0, 0, startCPU()
	for b.Loop() {
		if _, err := unix.Write(fds[i], one); err != nil {
			b.Fatal(err)
		}
		k, err := unix.EpollWait(ep, events, -1)
		if err != nil || k != 1 || int(events[0].Fd) != i {
			b.Fatalf("epoll_wait = %d, %v, %v after a write to %d", k, events, err, i)
		}
		if _, err := unix.Read(fds[i], got[:]); err != nil {
			b.Fatal(err)
		}
		if i++; i == n {
			i = 0
		}
		ops++
	}
	cpu.report(b, ops, "cpu-ns/op")
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
