package kube_test

import (
	"testing"

	"github.com/go-logr/logr"
	"go.uber.org/goleak"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

func TestMain(m *testing.M) {
	// controller-runtime's global logger: set once, so that its handlers
	// do not warn that it never was.
	log.SetLogger(logr.Discard())
	goleak.VerifyTestMain(m)
}
