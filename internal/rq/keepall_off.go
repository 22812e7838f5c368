//go:build !rq_keep

package rq

// KeepAll is false: only a queue whose Config sets Keep keeps its
// entries. Build with -tags rq_keep to make every queue keep them, for
// the benchmarks (keepall.go).
const KeepAll = false
