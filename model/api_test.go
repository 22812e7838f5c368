package model_test

import (
	"testing"

	"github.com/evsync/evsync/model"
	"github.com/evsync/evsync/readyq"
)

// TestModesAreReadyqs pins the promise of Mode's doc: model.Mode(m)
// converts a readyq.Mode m.
func TestModesAreReadyqs(t *testing.T) {
	for _, c := range []struct {
		real readyq.Mode
		want model.Mode
	}{{readyq.Edge, model.Edge}, {readyq.Level, model.Level}, {readyq.OneShot, model.OneShot}} {
		if got := model.Mode(c.real); got != c.want {
			t.Errorf("model.Mode(readyq.%v) = %d, want %d", c.real, got, c.want)
		}
	}
}
