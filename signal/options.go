package signal

// An Option configures a Signal in New. The coalescing options (a delayed
// wakeup for blocked readers) are built on package coalesce.
type Option interface{ apply(*Signal) }
