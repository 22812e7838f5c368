//go:build readyq_copyall

package readyq

// copyOutside is false in the simpler twin, built with -tags
// readyq_copyall. Every hand-out is then copied under the lock, whatever
// its size. bigbatch.go has the tuned code.
const copyOutside = false
