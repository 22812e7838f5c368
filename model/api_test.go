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

// TestAddOptsConvert pins the promise of AddOpts's doc: a readyq.AddOpts
// converts to it, field by field.
func TestAddOptsConvert(t *testing.T) {
	o := readyq.AddOpts{After: 3, RateLimited: true, Priority: -2}
	if got, want := model.AddOpts(o), (model.AddOpts{After: 3, RateLimited: true, Priority: -2}); got != want {
		t.Errorf("model.AddOpts(%+v) = %+v, want %+v", o, got, want)
	}
}
