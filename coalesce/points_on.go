//go:build evsynchooks

package coalesce

// Point is point as the tests name it, with the points below. They exist
// only in builds with the evsynchooks tag.
type Point = point

// PointDelivered is Deliver's window: the wakeup stored, the poll sets'
// armed count not yet loaded.
const PointDelivered = pointDelivered
