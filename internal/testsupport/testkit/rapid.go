package testkit

import (
	"context"
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/model"
	"pgregory.net/rapid"
)

// CheckModel runs a state-machine property with rapid.Check, several
// times over (modelRounds).
func CheckModel(t *testing.T, prop func(*rapid.T)) {
	t.Helper()
	for range modelRounds() {
		rapid.Check(t, prop)
	}
}

// FuzzModel makes a state-machine property a native fuzz target, with a
// few seed inputs so that plain go test runs it too: all zeros (the
// simplest draws) and four inputs of pseudo-random bytes from
// rand.NewPCG(seed1, seed2).
func FuzzModel(f *testing.F, seed1, seed2 uint64, prop func(*rapid.T)) {
	f.Add(make([]byte, 512))
	rng := rand.New(rand.NewPCG(seed1, seed2))
	for range 4 {
		b := make([]byte, 4096)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		f.Add(b)
	}
	f.Fuzz(rapid.MakeFuzz(prop))
}

// modelRounds is how many times CheckModel runs rapid's number of checks
// (-rapid.checks, 100 by default). Sequences are cheap, and the rarer
// interleavings, such as a Ready channel armed while a write goes straight
// to a queued reservation, need several hundred of them to turn up
// reliably. A run that replays a seed or a fail file, or -short, runs
// once.
func modelRounds() int {
	if testing.Short() {
		return 1
	}
	for name, unset := range map[string]string{"rapid.seed": "0", "rapid.failfile": ""} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != unset {
			return 1
		}
	}
	return 10
}

// DrawNilCtx draws whether a blocking call is made with a nil context, as
// it is one time in ten (it must then return ErrInvalid and change
// nothing).
func DrawNilCtx(t *rapid.T) bool {
	return rapid.IntRange(0, 9).Draw(t, "nil ctx") == 0
}

// cancelled is the already cancelled context PickCtx hands out.
var cancelled = Cancelled()

// DrawCtx draws the state of a blocking call's context when it starts: one
// time in four already done, else live.
func DrawCtx(t *rapid.T) model.Ctx {
	if rapid.IntRange(0, 3).Draw(t, "done ctx") == 0 {
		return model.Done
	}
	return model.Live
}

// PickCtx returns the context for a blocking call made with the context
// state c, whose model result is want, and the error the real call must
// then return. A Done call gets an already cancelled context and must
// return what the model says (context.Canceled, or ErrInvalid for a bad
// argument). A Live call that the model says completes at once gets a
// live context; one that would wait gets a cancelled context instead, so
// that it returns context.Canceled rather than park (the model, having
// returned ErrWouldBlock, changed nothing, as the cancelled call must).
func PickCtx(c model.Ctx, want error) (context.Context, error) {
	switch {
	case c == model.Done:
		return cancelled, want
	case want == evserr.ErrWouldBlock:
		return cancelled, context.Canceled
	}
	return context.Background(), want
}

// CheckBlocking checks a blocking call (what, for the report) against the
// model. One time in ten (DrawNilCtx) it makes the call with a nil
// context, which must return ErrInvalid, and leaves the model alone;
// otherwise it draws the context's state (DrawCtx), makes the model's
// call, then the real one with the context PickCtx chooses for the
// model's result, and compares the errors.
func CheckBlocking(t *rapid.T, what string, call func(context.Context) error, model func(model.Ctx) error) {
	t.Helper()
	if DrawNilCtx(t) {
		SameErr(t, what+"(nil ctx)", call(NilContext), evserr.ErrInvalid)
		return
	}
	c := DrawCtx(t)
	ctx, want := PickCtx(c, model(c))
	SameErr(t, what, call(ctx), want)
}

// DrawClose draws whether a Close action closes, on one draw in four (a
// no-op step otherwise), so that most runs spend a while open before they
// close.
func DrawClose(t *rapid.T) bool {
	return rapid.IntRange(0, 3).Draw(t, "close") == 0
}
