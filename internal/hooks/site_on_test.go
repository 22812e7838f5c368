//go:build evsynchooks

package hooks_test

import (
	"slices"
	"testing"

	"github.com/evsync/evsync/internal/hooks"
)

type point uint8

const (
	pointA point = iota
	pointB
)

// TestSiteRunsRegistered checks that Run calls the registered function
// with the point reached, in order, and nothing before Set or after
// Set(nil).
func TestSiteRunsRegistered(t *testing.T) {
	var s hooks.Site[point]
	s.Run(pointA) // nothing registered: no call, no panic
	var got []point
	s.Set(func(p point) { got = append(got, p) })
	s.Run(pointB)
	s.Run(pointA)
	s.Set(nil)
	s.Run(pointB)
	if want := []point{pointB, pointA}; !slices.Equal(got, want) {
		t.Fatalf("points seen = %v, want %v", got, want)
	}
}

// TestSiteSetReplaces checks that a second Set replaces the first
// function rather than adding to it.
func TestSiteSetReplaces(t *testing.T) {
	var s hooks.Site[point]
	first, second := 0, 0
	s.Set(func(point) { first++ })
	s.Set(func(point) { second++ })
	s.Run(pointA)
	if first != 0 || second != 1 {
		t.Fatalf("calls = %d, %d; want 0, 1", first, second)
	}
}

// TestSiteSetFunc checks that SetFunc's function runs at every point, and
// that SetFunc(nil) clears it.
func TestSiteSetFunc(t *testing.T) {
	var s hooks.Site[point]
	n := 0
	s.SetFunc(func() { n++ })
	s.Run(pointA)
	s.Run(pointB)
	s.SetFunc(nil)
	s.Run(pointA)
	if n != 2 {
		t.Fatalf("calls = %d, want 2", n)
	}
}
