//go:build rq_keep

package rq

// KeepAll makes every queue keep its entries as with Config.Keep, in a
// build with -tags rq_keep. The benchmarks' queues take no Config, so
// that is how they compare Keep with the default (keepall_off.go).
const KeepAll = true
