//go:build !race

package readmecheck

// raceFlags is "-race" in a binary built with -race, nil in one built
// without.
var raceFlags []string
