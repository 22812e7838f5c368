// Package layout holds tests of the module's layout. The public packages
// run on the standard library, golang.org/x/time and the production
// internals only. Test support lives under internal/testsupport, beside
// this package.
//
// TestTypeLimits type-checks readyq, workqueue, model and the production
// internals from source with go/types, as the default build sees them
// (no tags). No type has more than 30 methods, declared or promoted from
// the module's embedded types. No struct has more than 16 fields.
//
// TestTestFileNames checks the naming scheme of readyq, workqueue and the
// production internals: a test file is named for the file it tests. The
// tests of x.go are in x_test.go or x_<aspect>_test.go. Tests of the
// whole package are named for the file that defines its main type, which
// is named after the package (readyq_model_test.go). Go's main_test.go,
// example_test.go and export_test.go are allowed too.
//
// Each check lists today's offenders, and the list may only shrink.
package layout
