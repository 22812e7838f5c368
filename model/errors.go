package model

import "github.com/evsync/evsync/internal/evserr"

// The errors the models return. Each is the very value the real packages
// return, defined once for all of them. So errors.Is(err, model.ErrClosed)
// holds for semaphore.ErrClosed and readyq.ErrClosed alike.
var (
	// ErrWouldBlock is returned where the real call would wait, or where
	// the real non-blocking call fails, as eventfd's EAGAIN. It is
	// semaphore.ErrWouldBlock and signal.ErrWouldBlock.
	ErrWouldBlock = evserr.ErrWouldBlock

	// ErrInvalid is returned for a bad argument, as the real call does. It
	// is the ErrInvalid of every package.
	ErrInvalid = evserr.ErrInvalid

	// ErrClosed is returned once the modelled primitive is closed and the
	// call cannot be served. It is the ErrClosed of every package.
	ErrClosed = evserr.ErrClosed

	// ErrOverRelease is returned by Limiter.Release of more units than
	// are held. It is semaphore.ErrOverRelease.
	ErrOverRelease = evserr.ErrOverRelease

	// ErrExists is returned by Set.Add for a source already in the Set,
	// as epoll_ctl's EEXIST.
	ErrExists = evserr.ErrExists

	// ErrNotFound is returned by Set.Modify and Set.Remove for a source
	// not in the Set, as epoll_ctl's ENOENT.
	ErrNotFound = evserr.ErrNotFound
)
