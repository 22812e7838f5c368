//go:build race

package rqtest

// raceOn is whether the race detector is on, which slows the churn test
// about tenfold.
const raceOn = true
