package lincheck_test

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/evsync/evsync/internal/testsupport/lincheck"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// register is a model of an integer register: an input of -1 reads, any
// other value writes; a read's output is the value read.
var register = porcupine.Model{
	Init: func() any { return 0 },
	Step: func(state, in, out any) (bool, any) {
		if v := in.(int); v >= 0 {
			return true, v
		}
		return out.(int) == state.(int), state
	},
	DescribeOperation: func(in, out any) string {
		if v := in.(int); v >= 0 {
			return fmt.Sprintf("write(%d)", v)
		}
		return fmt.Sprintf("read() → %d", out.(int))
	},
}

// TestRecordStamps: one client's calls get increasing stamps, Call before
// Return, and Operations returns every client's calls by Call stamp.
func TestRecordStamps(t *testing.T) {
	var r lincheck.Recorder
	var reg atomic.Int64
	r.Run(3, func(c *lincheck.Client, i int) {
		for range 10 {
			lincheck.Record(c, i, func() int { reg.Store(int64(i)); return 0 })
			lincheck.Record(c, -1, func() int { return int(reg.Load()) })
		}
	})
	ops := r.Operations()
	if len(ops) != 60 {
		t.Fatalf("%d operations, want 60", len(ops))
	}
	last := map[int]int64{}
	for i, op := range ops {
		if op.Call >= op.Return {
			t.Fatalf("operation %d: Call %d ≥ Return %d", i, op.Call, op.Return)
		}
		if i > 0 && ops[i-1].Call >= op.Call {
			t.Fatalf("operations not sorted by Call at %d", i)
		}
		if op.Call <= last[op.ClientId] {
			t.Fatalf("client %d: call at %d before its previous return at %d", op.ClientId, op.Call, last[op.ClientId])
		}
		last[op.ClientId] = op.Return
	}
	if res := lincheck.Check(t, "register", register, ops, 10*time.Second); res != porcupine.Ok {
		t.Fatalf("a real register's history: %v", res)
	}
}

func op(client int, in, out int, call, ret int64) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: in, Output: out, Call: call, Return: ret}
}

// TestCheckRejectsAndVisualizes: a history that reads a value after it
// was overwritten is rejected, and the report names a visualisation file.
func TestCheckRejectsAndVisualizes(t *testing.T) {
	bad := []porcupine.Operation{
		op(0, 1, 0, 1, 2),  // write(1)
		op(0, 2, 0, 3, 4),  // write(2)
		op(1, -1, 1, 5, 6), // read() → 1, after write(2) returned
	}
	var ft lincheck.Capture
	if res := lincheck.Check(&ft, "stale read", register, bad, 10*time.Second); res != porcupine.Illegal {
		t.Fatalf("Check = %v, want Illegal", res)
	}
	_, path, ok := strings.Cut(ft.Msg, "visualisation: ")
	if !ok || !strings.Contains(path, "stale-read") {
		t.Fatalf("report %q names no visualisation file", ft.Msg)
	}
	info, err := os.Stat(path)
	if err != nil || info.Size() == 0 {
		t.Fatalf("visualisation %s: %v", path, err)
	}
	os.Remove(path)
	// The same read overlapping write(2) is linearizable.
	bad[2].Call = 3
	if res := lincheck.Check(t, "overlapping read", register, bad, 10*time.Second); res != porcupine.Ok {
		t.Fatalf("Check = %v, want Ok", res)
	}
}

func TestOverlap(t *testing.T) {
	a := op(0, 0, 0, 1, 4)
	for _, c := range []struct {
		call, ret int64
		want      bool
	}{{5, 6, false}, {4, 6, true}, {2, 3, true}, {0, 1, true}} {
		if got := lincheck.Overlap(a, op(1, 0, 0, c.call, c.ret)); got != c.want {
			t.Errorf("Overlap([1,4], [%d,%d]) = %v, want %v", c.call, c.ret, got, c.want)
		}
	}
}
