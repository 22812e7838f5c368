package testkit

import "pgregory.net/rapid"

// Edges returns the amounts at the edges of a counter with the given
// limit: 0, 1, 2, around the limit, and the top three uint64 values
// (1<<64-2 is eventfd's maximum, 1<<64-1 is always invalid).
func Edges(limit uint64) []uint64 {
	return []uint64{0, 1, 2, limit - 1, limit, limit + 1, 1<<64 - 3, 1<<64 - 2, 1<<64 - 1}
}

// Near returns the amounts around count, count-1 and count+1, and for each
// target the amounts that take count exactly to it or one either side,
// and the target itself. Differences wrap around, as a caller's arithmetic
// would.
func Near(count uint64, targets ...uint64) []uint64 {
	near := []uint64{count, count - 1, count + 1}
	for _, t := range targets {
		near = append(near, t-count, t-count+1, t-count-1, t)
	}
	return near
}

// Amount generates the size of a write or a request to a counter holding
// count with the given limit, concentrated at the edges: Near(count,
// limit, targets...) (twice as often), Edges(limit), small values and any
// uint64.
func Amount(count, limit uint64, targets ...uint64) *rapid.Generator[uint64] {
	near := Near(count, append([]uint64{limit}, targets...)...)
	return rapid.OneOf(
		rapid.SampledFrom(near),
		rapid.SampledFrom(Edges(limit)),
		rapid.Uint64Range(0, 8),
		rapid.SampledFrom(near),
		rapid.Uint64(),
	)
}

// Initial generates an initial count for a counter with the given limit
// (at least 1): the edges 0, 1, 2 and around the limit, small values and
// any value up to the limit.
func Initial(limit uint64) *rapid.Generator[uint64] {
	return rapid.OneOf(
		rapid.SampledFrom([]uint64{0, 1, min(2, limit), limit - 1, limit}),
		rapid.Uint64Range(0, min(limit, 8)),
		rapid.Uint64Range(0, limit),
	)
}
