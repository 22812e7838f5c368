package model

import "github.com/evsync/evsync/internal/spin"

// The errors the models return. Each is the very value the real packages
// return, so errors.Is(err, model.ErrClosed) holds for semaphore.ErrClosed,
// signal.ErrClosed, coalesce.ErrClosed and readyq.ErrClosed alike, and the
// same goes for the others.
var (
	// ErrWouldBlock is returned where the real call would wait (a Live
	// context) or where a non-blocking call would fail with EAGAIN. It is
	// semaphore.ErrWouldBlock and signal.ErrWouldBlock.
	ErrWouldBlock = spin.ErrWouldBlock

	// ErrInvalid is returned for a bad argument, as the real call does.
	ErrInvalid = spin.ErrInvalid

	// ErrClosed is returned once the modelled primitive is closed and the
	// call cannot be served.
	ErrClosed = spin.ErrClosed

	// ErrOverRelease is returned by Limiter.Release of more units than
	// are held. It is semaphore.ErrOverRelease.
	ErrOverRelease = spin.ErrOverRelease
)
