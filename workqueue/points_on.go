//go:build evsynchooks

package workqueue

// Point is point as the tests name it, with the points below. They exist
// only in builds with the evsynchooks tag.
type Point = point

const (
	PointLoaded = pointLoaded
	PointArmed  = pointArmed
)
