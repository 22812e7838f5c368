//go:build evsynchooks

package readyq

// Point is point as the tests name it, with the points below. They exist
// only in builds with the evsynchooks tag.
type Point = point

const (
	PointLock  = pointLock
	PointWatch = pointWatch
	PointArmed = pointArmed
)
