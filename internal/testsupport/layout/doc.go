// Package layout holds one test: the public packages run on the
// standard library, golang.org/x/time and the production internals only.
// Test support lives under internal/testsupport, beside this package.
package layout
