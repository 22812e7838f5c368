package readmecheck

// Packages is the table of packages.go, and BuildFlags gives the flags
// Check passes to go list, for the tests that Check compiles nothing.
var (
	Packages   = packages
	BuildFlags = buildFlags
)
