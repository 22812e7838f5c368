// Package readyq is, for the moment, package workqueue under its old
// name: every name here is an alias of workqueue's. It lets the nested
// modules move to workqueue in a commit of their own (RELEASING.md). The
// next change makes readyq epoll's ready list alone.
package readyq

import (
	"time"

	"github.com/evsync/evsync/clock"
	"github.com/evsync/evsync/workqueue"
	"golang.org/x/time/rate"
)

// The names of package workqueue.
var (
	ErrInvalid = workqueue.ErrInvalid
	ErrClosed  = workqueue.ErrClosed
)

// The modes of package workqueue.
const (
	Edge    = workqueue.Edge
	Level   = workqueue.Level
	OneShot = workqueue.OneShot
)

type (
	AddOpts                   = workqueue.AddOpts
	Config[T comparable]      = workqueue.Config[T]
	Metrics                   = workqueue.Metrics
	Mode                      = workqueue.Mode
	Option                    = workqueue.Option
	Queue[T comparable]       = workqueue.Queue[T]
	RateLimiter[T comparable] = workqueue.RateLimiter[T]
	Stats                     = workqueue.Stats
)

// WithClock is workqueue.WithClock.
func WithClock[T clock.Timer](c clock.Clock[T]) Option { return workqueue.WithClock(c) }

// New is workqueue.New.
func New[T comparable](opts ...Option) *Queue[T] { return workqueue.New[T](opts...) }

// NewWithConfig is workqueue.NewWithConfig.
func NewWithConfig[T comparable](c Config[T], opts ...Option) *Queue[T] {
	return workqueue.NewWithConfig(c, opts...)
}

// BucketRateLimiter is workqueue.BucketRateLimiter.
func BucketRateLimiter[T comparable](l *rate.Limiter) RateLimiter[T] {
	return workqueue.BucketRateLimiter[T](l)
}

// DefaultRateLimiter is workqueue.DefaultRateLimiter.
func DefaultRateLimiter[T comparable]() RateLimiter[T] { return workqueue.DefaultRateLimiter[T]() }

// ExponentialRateLimiter is workqueue.ExponentialRateLimiter.
func ExponentialRateLimiter[T comparable](base, max time.Duration) RateLimiter[T] {
	return workqueue.ExponentialRateLimiter[T](base, max)
}

// MaxOfRateLimiters is workqueue.MaxOfRateLimiters.
func MaxOfRateLimiters[T comparable](limiters ...RateLimiter[T]) RateLimiter[T] {
	return workqueue.MaxOfRateLimiters(limiters...)
}
