//go:build evsynchooks

package poll

// Point is point as the tests name it, with the points below. They exist
// only in builds with the evsynchooks tag.
type Point = point

const (
	PointWake     = pointWake
	PointHarvest  = pointHarvest
	PointAdd      = pointAdd
	PointModify   = pointModify
	PointUnlocked = pointUnlocked
	PointNest     = pointNest
	PointEnd      = pointEnd
	PointFire     = pointFire
)
