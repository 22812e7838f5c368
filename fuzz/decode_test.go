package fuzz_test

import (
	"context"
	"encoding/binary"
	"strings"

	"github.com/evsync/evsync/internal/evserr"
	"github.com/evsync/evsync/model"
)

// The input format. Every byte string decodes to some run: a missing byte
// reads as 0, and a byte outside a field's letters is taken modulo the
// number of choices, so the fuzzer's mutations always mean something. The
// letters make seeds readable and writable by hand (see corpus_test.go):
//
//   - An input starts with a few configuration bytes (per target).
//   - Then come operations: one byte naming the operation (a letter of the
//     target's code string, such as "ATRWVXKYC" for the semaphore),
//     followed by its operands. At most maxOps operations are made.
//   - An amount is one byte: '0'…'9' are the values 0…9, 'a'…'r' the edge
//     values of edges (0, 1, 2, around the limit, the top three uint64
//     values, the values that take the count exactly to the limit or one
//     either side, …), '#' the next 8 bytes as a little-endian uint64, and
//     bytes from 0x80 up the values 0…127. Other bytes pick an edge value
//     modulo the table's size.
//   - A context is one byte: '0' live, '1' already cancelled, '2' nil
//     (the byte modulo 3).
//   - An index (of a reservation or a parked call) is one byte, '0' for
//     the first, modulo the number there are.

// maxOps bounds the operations of one input, so that a long input costs
// no more than a few hundred steps.
const maxOps = 300

// A decoder reads a fuzz input, one decision at a time.
type decoder struct {
	data []byte
	ops  int
}

// more reports whether another operation follows.
func (d *decoder) more() bool { return len(d.data) != 0 && d.ops < maxOps }

// byte returns the next byte, or 0 once the input is used up.
func (d *decoder) byte() byte {
	if len(d.data) == 0 {
		return 0
	}
	b := d.data[0]
	d.data = d.data[1:]
	return b
}

// op decodes an operation: the index of its letter in codes.
func (d *decoder) op(codes string) int { return d.opFirst(codes, len(codes)) }

// opFirst decodes an operation: the index of its letter in codes; a byte
// that is no letter picks one of the first n operations, modulo n. A
// target whose code string grew keeps n at its old length, so that an
// input written before decodes as it did.
func (d *decoder) opFirst(codes string, n int) int {
	d.ops++
	b := d.byte()
	if i := strings.IndexByte(codes, b); i >= 0 {
		return i
	}
	return int(b) % n
}

// choice decodes a small choice among n, '0' being the first.
func (d *decoder) choice(n int) int { return int(d.byte()-'0') % n }

// amount decodes an amount for a counter holding count with the given
// limit; head is the need of the first queued acquirer (1 if none).
func (d *decoder) amount(count, limit, head uint64) uint64 {
	s := d.byte()
	switch {
	case '0' <= s && s <= '9':
		return uint64(s - '0')
	case s == '#':
		var b [8]byte
		for i := range b {
			b[i] = d.byte()
		}
		return binary.LittleEndian.Uint64(b[:])
	case s >= 0x80:
		return uint64(s - 0x80)
	}
	e := edges(count, limit, head)
	return e[int(s-'a')%len(e)]
}

// edges are the amounts at the edges of a counter, lettered 'a'…'r' in
// the input. Differences wrap around, as a caller's arithmetic would.
func edges(count, limit, head uint64) [18]uint64 {
	return [18]uint64{
		0, 1, 2, // a b c
		limit - 1, limit, limit + 1, // d e f
		1<<64 - 3, 1<<64 - 2, 1<<64 - 1, // g h i: below Max, Max (eventfd's maximum), always invalid
		count, count + 1, count - 1, // j k l
		limit - count, limit - count + 1, limit - count - 1, // m n o: to the limit, just past it, just short
		head,             // p: exactly what the first waiter needs
		1 << 32, 1 << 63, // q r
	}
}

// ctxKind is how a blocking call's context is chosen.
type ctxKind uint8

const (
	ctxLive      ctxKind = iota // '0': a live context (or a parked call)
	ctxCancelled                // '1': already cancelled
	ctxNil                      // '2': nil, which every blocking call refuses
)

// ctx decodes a context choice.
func (d *decoder) ctx() ctxKind { return ctxKind(d.byte() % 3) }

// model is the context state the models take for k (not for ctxNil,
// which no model call sees): Done for an already cancelled context.
func (k ctxKind) model() model.Ctx {
	if k == ctxCancelled {
		return model.Done
	}
	return model.Live
}

// cancelled is the already cancelled context of the blocking calls.
var cancelled = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// nilCtx is a nil context, a variable so that vet lets the tests pass it.
var nilCtx context.Context

// context returns the context of a call whose choice was k.
func (k ctxKind) context() context.Context {
	switch k {
	case ctxLive:
		return context.Background()
	case ctxCancelled:
		return cancelled
	}
	return nilCtx
}

// cancelledErr is what a blocking call made with a cancelled context
// returns where the model says want: context.Canceled where the model
// would wait (ErrWouldBlock), want otherwise.
func cancelledErr(want error) error {
	if want == evserr.ErrWouldBlock {
		return context.Canceled
	}
	return want
}

// errName names an outcome for the coverage tally and failure reports.
func errName(err error) string {
	switch sentinel(err) {
	case nil:
		return "ok"
	case evserr.ErrWouldBlock:
		return "ErrWouldBlock"
	case evserr.ErrInvalid:
		return "ErrInvalid"
	case evserr.ErrClosed:
		return "ErrClosed"
	case evserr.ErrOverRelease:
		return "ErrOverRelease"
	case context.Canceled:
		return "Canceled"
	}
	return "other(" + err.Error() + ")"
}

// A tally counts what a run exercised, under labels such as "Release" and
// "Release/ErrWouldBlock", so that a test can check that the seed corpus
// reaches every operation and every outcome. A nil tally counts nothing
// (the fuzz targets run without one).
type tally map[string]int

// hit counts the labels op and op/outcome.
func (t tally) hit(op, outcome string) {
	if t != nil {
		t[op]++
		t[op+"/"+outcome]++
	}
}

// err counts op with the outcome err.
func (t tally) err(op string, err error) { t.hit(op, errName(err)) }
