//go:build !linux

package anchor

import "errors"

// NewEventfdSemaphore returns errors.ErrUnsupported: eventfd is Linux only.
func NewEventfdSemaphore(limit uint64) (Semaphore, error) { return nil, errors.ErrUnsupported }

// NewEventfdSignal returns errors.ErrUnsupported: eventfd is Linux only.
func NewEventfdSignal() (Signal, error) { return nil, errors.ErrUnsupported }
