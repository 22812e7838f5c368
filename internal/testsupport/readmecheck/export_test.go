package readmecheck

// Packages is the table of packages.go, for the test that this test
// links every package of it.
var Packages = packages
