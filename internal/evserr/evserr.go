// Package evserr defines the errors every evsync package shares. Each
// public package re-exports the ones it returns, so one value is the
// same error in all of them and errors.Is holds across packages.
package evserr

import (
	"errors"
	"fmt"
)

var (
	// ErrWouldBlock is returned by non-blocking calls that could only
	// succeed by waiting, as eventfd's EAGAIN. The semaphore and signal
	// packages return it, and internal/counter beneath them.
	ErrWouldBlock = errors.New("evsync: operation would block")

	// ErrInvalid is returned for arguments that can never succeed, such
	// as a request above the limit or a nil context (eventfd's EINVAL).
	// Every evsync package returns it, or an error that wraps it.
	ErrInvalid = errors.New("evsync: invalid argument")

	// ErrClosed is returned by writes after Close and by reads once a
	// closed primitive has nothing left to hand out. The semaphore,
	// signal, coalesce and readyq packages return it.
	ErrClosed = errors.New("evsync: closed")

	// ErrOverRelease is returned by a semaphore.Limiter's Release of more
	// units than its holders hold.
	ErrOverRelease = errors.New("evsync: released more units than are held")

	// ErrExists is returned by the Add of a source already in a poll
	// set (epoll_ctl's EEXIST).
	ErrExists = errors.New("evsync: already in the set")

	// ErrNotFound is returned by the Modify or Remove of a source not in
	// a poll set (epoll_ctl's ENOENT).
	ErrNotFound = errors.New("evsync: not in the set")
)

// Invalid returns an error that says what was wrong with a call of the
// package pkg, and matches ErrInvalid with errors.Is. It reads
// "pkg: what: evsync: invalid argument", where what is format applied to
// args. Only error paths call it, so a call that succeeds allocates
// nothing for it.
func Invalid(pkg, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %w", pkg, fmt.Sprintf(format, args...), ErrInvalid)
}
