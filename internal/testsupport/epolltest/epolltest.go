//go:build linux

// Package epolltest is the kernel's side of the poll differentials:
// eventfds and timerfds in a real epoll instance (golang.org/x/sys/unix),
// with the kernel's errors mapped to evsync's and its events to
// model.SetEvent.
//
// A timerfd stands for a Deadline. The differential has a clock of its
// own, which only Advance moves. When it reaches a timerfd's time, the
// Kernel arms the timerfd for 1 ns and waits, with poll(2), until it is
// readable. So its expiry wakes the epoll instance before the next call,
// at the point of the sequence where the model's and the Set's clock
// pass the Deadline's time. A timerfd is never read: it stays readable,
// as a Deadline stays ready.
package epolltest

import (
	"cmp"
	"encoding/binary"
	"errors"
	"slices"
	"time"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/model"
	"golang.org/x/sys/unix"
)

// Fataler is what a Kernel needs of a *testing.T or a *rapid.T.
type Fataler interface {
	Fatalf(format string, args ...any)
}

// A Config is what both sides of a differential are made of: an eventfd
// for each entry of Sems, with EFD_SEMAPHORE if it is true, and then a
// timerfd for each entry of Deadlines, its time on the differential's
// clock, which starts at 0. Source i is the i-th of them all.
type Config struct {
	Sems      []bool
	Deadlines []time.Duration
}

// A Kernel is eventfds and timerfds in an epoll instance. Source i is
// registered with i as its data, so a wait reports it under key i.
type Kernel struct {
	ep      int
	fds     []int           // the eventfds, then the timerfds
	nev     int             // how many eventfds
	at      []time.Duration // the time of each source, for a timerfd
	expired []bool          // the timerfd was armed, and is readable
	now     time.Duration   // the differential's clock

	reported, timed int // the events waits reported, and those of timerfds
}

// New makes an epoll instance, a non-blocking eventfd for each entry of
// c.Sems and a timerfd for each of c.Deadlines. Deadlines of one time
// are made a nanosecond apart, in order, since the Set promises no order
// among them: Time tells each one's. A timerfd whose time is 0 expires
// at once. New fails t if the kernel refuses.
func New(t Fataler, c Config) *Kernel {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		t.Fatalf("epoll_create1: %v", err)
	}
	k := &Kernel{ep: ep, nev: len(c.Sems)}
	for _, sem := range c.Sems {
		flags := unix.EFD_NONBLOCK | unix.EFD_CLOEXEC
		if sem {
			flags |= unix.EFD_SEMAPHORE
		}
		fd, err := unix.Eventfd(0, flags)
		if err != nil {
			k.Close()
			t.Fatalf("eventfd: %v", err)
		}
		k.fds, k.at, k.expired = append(k.fds, fd), append(k.at, 0), append(k.expired, false)
	}
	for _, at := range c.Deadlines {
		k.fds, k.at, k.expired = append(k.fds, -1), append(k.at, 0), append(k.expired, false)
		k.newTimer(t, len(k.fds)-1, at)
	}
	return k
}

// Close closes the eventfds, the timerfds and the epoll instance.
func (k *Kernel) Close() {
	for _, fd := range k.fds {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
	unix.Close(k.ep)
}

// Eventfds returns how many eventfds there are: sources 0 to Eventfds()-1.
// The rest are timerfds.
func (k *Kernel) Eventfds() int { return k.nev }

// Sources returns how many sources there are, eventfds and timerfds.
func (k *Kernel) Sources() int { return len(k.fds) }

// Time returns the time of the timerfd i on the differential's clock.
func (k *Kernel) Time(i int) time.Duration { return k.at[i] }

// Now returns the time on the differential's clock.
func (k *Kernel) Now() time.Duration { return k.now }

// Reported returns how many events the waits reported, and how many of
// them were timerfds'.
func (k *Kernel) Reported() (all, timers int) { return k.reported, k.timed }

// newTimer makes a timerfd for source i, at at or, if another timerfd
// has that time, the first free nanosecond after. It expires at once if
// the clock has reached that time.
func (k *Kernel) newTimer(t Fataler, i int, at time.Duration) {
	for k.taken(at) {
		at++
	}
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		t.Fatalf("timerfd_create: %v", err)
	}
	k.fds[i], k.at[i], k.expired[i] = fd, at, false
	if at <= k.now {
		k.expire(t, i)
	}
}

// taken reports whether a timerfd has the time at.
func (k *Kernel) taken(at time.Duration) bool {
	for i := k.nev; i < len(k.fds); i++ {
		if k.fds[i] >= 0 && k.at[i] == at {
			return true
		}
	}
	return false
}

// expire arms the timerfd i for 1 ns and waits until it is readable: its
// expiry has woken the epoll instance.
func (k *Kernel) expire(t Fataler, i int) {
	spec := unix.ItimerSpec{Value: unix.Timespec{Nsec: 1}}
	if err := unix.TimerfdSettime(k.fds[i], 0, &spec, nil); err != nil {
		t.Fatalf("timerfd_settime: %v", err)
	}
	fds := []unix.PollFd{{Fd: int32(k.fds[i]), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 10_000)
	for errors.Is(err, unix.EINTR) {
		n, err = unix.Poll(fds, 10_000)
	}
	switch {
	case err != nil:
		t.Fatalf("poll(timerfd): %v", err)
	case n == 0:
		t.Fatalf("poll(timerfd): not readable 10 s after its expiry")
	}
	k.expired[i] = true
}

// Advance moves the differential's clock on by d. The timerfds whose time
// comes expire, in the order of their times, each before the next is
// armed: so the epoll instance is woken in that order.
func (k *Kernel) Advance(t Fataler, d time.Duration) {
	k.now += d
	var due []int
	for i := k.nev; i < len(k.fds); i++ {
		if !k.expired[i] && k.at[i] <= k.now {
			due = append(due, i)
		}
	}
	slices.SortFunc(due, func(a, b int) int { return cmp.Compare(k.at[a], k.at[b]) })
	for _, i := range due {
		k.expire(t, i)
	}
}

// Renew closes the timerfd i, which takes it out of the epoll instance,
// and makes a new one in its place, d after now (or later, as New says).
// It returns the new one's time.
func (k *Kernel) Renew(t Fataler, i int, d time.Duration) time.Duration {
	unix.Close(k.fds[i])
	k.fds[i] = -1
	k.newTimer(t, i, k.now+d)
	return k.at[i]
}

// The epoll_ctl operations.
const (
	Add    = unix.EPOLL_CTL_ADD
	Modify = unix.EPOLL_CTL_MOD
	Remove = unix.EPOLL_CTL_DEL
)

// flags returns epoll's event mask for events and mode m.
func flags(events model.Events, m model.Mode) uint32 {
	var f uint32
	if events&model.In != 0 {
		f |= unix.EPOLLIN
	}
	if events&model.Out != 0 {
		f |= unix.EPOLLOUT
	}
	switch m {
	case model.Edge:
		f |= unix.EPOLLET
	case model.OneShot:
		f |= unix.EPOLLONESHOT
	}
	return f
}

// Ctl makes an epoll_ctl call op (Add, Modify, Remove) for the source i.
func (k *Kernel) Ctl(op, i int, events model.Events, m model.Mode) error {
	ev := &unix.EpollEvent{Events: flags(events, m), Fd: int32(i)}
	if op == Remove {
		ev = nil
	}
	return errOf(unix.EpollCtl(k.ep, op, k.fds[i], ev))
}

// errOf maps the kernel's errors to evsync's, which are model's.
func errOf(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EAGAIN):
		return evserr.ErrWouldBlock
	case errors.Is(err, unix.EINVAL):
		return evserr.ErrInvalid
	case errors.Is(err, unix.EEXIST):
		return evserr.ErrExists
	case errors.Is(err, unix.ENOENT):
		return evserr.ErrNotFound
	}
	return err
}

// Write writes v to the eventfd i.
func (k *Kernel) Write(i int, v uint64) error {
	_, err := unix.Write(k.fds[i], binary.NativeEndian.AppendUint64(nil, v))
	return errOf(err)
}

// Read reads the eventfd i.
func (k *Kernel) Read(i int) (uint64, error) {
	var b [8]byte
	if _, err := unix.Read(k.fds[i], b[:]); err != nil {
		return 0, errOf(err)
	}
	return binary.NativeEndian.Uint64(b[:]), nil
}

// Wait is epoll_wait with maxevents max and a timeout of 0. It counts the
// events it reports (Reported).
func (k *Kernel) Wait(t Fataler, max int) []model.SetEvent {
	buf := make([]unix.EpollEvent, max)
	var n int
	for {
		var err error
		if n, err = unix.EpollWait(k.ep, buf, 0); !errors.Is(err, unix.EINTR) {
			if err != nil {
				t.Fatalf("epoll_wait: %v", err)
			}
			break
		}
	}
	var evs []model.SetEvent
	for _, e := range buf[:n] {
		var ev model.Events
		if e.Events&unix.EPOLLIN != 0 {
			ev |= model.In
		}
		if e.Events&unix.EPOLLOUT != 0 {
			ev |= model.Out
		}
		if e.Events&unix.EPOLLHUP != 0 {
			ev |= model.Hup
		}
		evs = append(evs, model.SetEvent{Key: int(e.Fd), Events: ev})
		if int(e.Fd) >= k.nev {
			k.timed++
		}
	}
	k.reported += len(evs)
	return evs
}
