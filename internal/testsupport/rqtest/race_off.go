//go:build !race

package rqtest

// raceOn is whether the race detector is on (race_on.go).
const raceOn = false
