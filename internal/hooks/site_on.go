//go:build evsynchooks

package hooks

import "sync/atomic"

// Site is a package's set of windows, named by points of type P. The
// zero Site has no function registered. It is used as a package
// variable, shared by every goroutine, and must not be copied.
type Site[P ~uint8] struct {
	f atomic.Pointer[func(P)] // the function a test registered, or nil
}

// Run calls the registered function, if any, with p, on the caller's
// goroutine. It returns when the function does.
func (s *Site[P]) Run(p P) {
	if f := s.f.Load(); f != nil {
		(*f)(p)
	}
}

// Set registers f to run at every point Run marks, or none if f is nil.
// It replaces the function registered before. A Run already under way
// keeps the function it loaded.
func (s *Site[P]) Set(f func(P)) {
	if f == nil {
		s.f.Store(nil)
		return
	}
	s.f.Store(&f)
}

// SetFunc is Set for a site with a single point, whose function need not
// be told which one was reached: f runs at every point, or none if f is
// nil.
func (s *Site[P]) SetFunc(f func()) {
	if f == nil {
		s.Set(nil)
		return
	}
	s.Set(func(P) { f() })
}
