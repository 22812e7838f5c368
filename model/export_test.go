package model

// Backoff is the exponential limiter's delay, for its own test.
var Backoff = backoff
