// Package layout holds tests of the module's layout. The public packages
// run on the standard library, golang.org/x/time and the production
// internals only. Test support lives under internal/testsupport, beside
// this package.
//
// TestTypeLimits reads the source of readyq, workqueue, model and the
// production internals as the default build sees it (no tags). No type
// has more than 30 methods, declared or promoted from the module's
// embedded types, and no struct more than 16 fields. The types over a
// limit today are listed with their counts, which may only go down.
package layout
