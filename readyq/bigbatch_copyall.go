//go:build readyq_copyall

package readyq

// copyOutside is false in the simpler twin built with -tags
// readyq_copyall: every hand-out is copied under the lock, whatever its
// size (bigbatch.go has the tuned code).
const copyOutside = false
