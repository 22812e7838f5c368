// Package lincheck records concurrent histories of calls and checks them
// for linearizability with porcupine, for evsync's tests.
//
// A Recorder hands out one Client per goroutine. Each call made through
// Record is stamped with a Call and a Return time from the Recorder's one
// atomic counter, taken just before the call starts and just after it
// returns, so the order of the stamps is a real-time order of the events:
// if one call returned before another was called, its Return stamp is
// smaller than the other's Call stamp. Each Client keeps its own log, so
// recording adds no synchronisation between the goroutines beyond the
// counter. Check runs porcupine on the merged history and, on failure,
// writes porcupine's visualisation to a file and names it in the report.
//
// Adding a primitive to the linearizability tests takes a sequential model
// (a porcupine.Model with a pure Step over a small comparable state) and a
// workload that makes its calls through Record.
//
// It is imported only by _test.go files.
package lincheck

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// A Recorder collects one history. The zero value is ready to use; get
// the Clients before the goroutines that use them start.
type Recorder struct {
	clock   atomic.Int64
	clients []*Client
}

// A Client records the calls of one goroutine; it must not be shared.
type Client struct {
	r   *Recorder
	id  int
	ops []porcupine.Operation
}

// Client returns a new Client, numbered from 0 in the order of the calls
// (porcupine's visualisation draws one line per client).
func (r *Recorder) Client() *Client {
	c := &Client{r: r, id: len(r.clients)}
	r.clients = append(r.clients, c)
	return c
}

// ID is the client's number.
func (c *Client) ID() int { return c.id }

// Record makes the call f, described by in for the model, on client c and
// records it with its output and its Call and Return stamps; it returns
// f's output.
func Record[In, Out any](c *Client, in In, f func() Out) Out {
	call := c.r.clock.Add(1)
	out := f()
	ret := c.r.clock.Add(1)
	c.ops = append(c.ops, porcupine.Operation{ClientId: c.id, Input: in, Call: call, Output: out, Return: ret})
	return out
}

// Operations returns every client's calls, by Call stamp. Call it only
// once the goroutines have returned.
func (r *Recorder) Operations() []porcupine.Operation {
	var ops []porcupine.Operation
	for _, c := range r.clients {
		ops = append(ops, c.ops...)
	}
	slices.SortFunc(ops, func(a, b porcupine.Operation) int { return int(a.Call - b.Call) })
	return ops
}

// Run makes n new Clients and calls body(c, i) for each on a goroutine of
// its own, and returns once they all have. The goroutines start their
// bodies together, once all of them exist, so that their calls overlap.
func (r *Recorder) Run(n int, body func(c *Client, i int)) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		c := r.Client()
		wg.Go(func() {
			<-start
			body(c, i)
		})
	}
	close(start)
	wg.Wait()
}

// Concurrency returns the fraction of ops that overlap a call of another
// client: a measure of how much a workload's histories test.
func Concurrency(ops []porcupine.Operation) float64 {
	if len(ops) == 0 {
		return 0
	}
	n := 0
	for i, a := range ops {
		for j, b := range ops {
			if i != j && a.ClientId != b.ClientId && Overlap(a, b) {
				n++
				break
			}
		}
	}
	return float64(n) / float64(len(ops))
}

// Overlap reports whether two calls overlap in time, that is whether
// either could have taken effect while the other was under way (porcupine
// treats [Call, Return] as a closed interval, and so does Overlap).
func Overlap(a, b porcupine.Operation) bool { return a.Call <= b.Return && b.Call <= a.Return }

// Check checks that ops is linearizable with respect to m, giving
// porcupine at most timeout. It fails t (without stopping it) if the
// history is not linearizable, writing porcupine's visualisation of it to
// a file under os.TempDir whose path it reports, or if the check timed
// out; name identifies the history in the report. It returns porcupine's
// verdict.
func Check(t testing.TB, name string, m porcupine.Model, ops []porcupine.Operation, timeout time.Duration) porcupine.CheckResult {
	t.Helper()
	res, info := porcupine.CheckOperationsVerbose(m, ops, timeout)
	switch res {
	case porcupine.Illegal:
		path, err := Visualize(m, info, name)
		if err != nil {
			path = fmt.Sprintf("none (%v)", err)
		}
		t.Errorf("%s: history of %d calls is not linearizable:\n%s\tvisualisation: %s", name, len(ops), Format(m, ops), path)
	case porcupine.Unknown:
		t.Errorf("%s: linearizability check of %d calls timed out after %v", name, len(ops), timeout)
	}
	return res
}

// Format lists the calls of a history, one a line, by Call stamp, with
// their clients and stamps, described by m's DescribeOperation if it has
// one.
func Format(m porcupine.Model, ops []porcupine.Operation) string {
	ops = slices.Clone(ops)
	slices.SortFunc(ops, func(a, b porcupine.Operation) int { return int(a.Call - b.Call) })
	var b strings.Builder
	for _, op := range ops {
		desc := fmt.Sprintf("%v → %v", op.Input, op.Output)
		if m.DescribeOperation != nil {
			desc = m.DescribeOperation(op.Input, op.Output)
		}
		fmt.Fprintf(&b, "\tclient %d [%3d, %3d] %s\n", op.ClientId, op.Call, op.Return, desc)
	}
	return b.String()
}

// Visualize writes porcupine's visualisation of a checked history to a
// new HTML file under os.TempDir and returns its path.
func Visualize(m porcupine.Model, info porcupine.LinearizationInfo, name string) (string, error) {
	f, err := os.CreateTemp("", "evsync-lincheck-"+fileSafe(name)+"-*.html")
	if err != nil {
		return "", err
	}
	path := f.Name()
	f.Close()
	if err := porcupine.VisualizePath(m, info, path); err != nil {
		return "", err
	}
	return path, nil
}

// fileSafe keeps the letters and digits of name, and a dash for each run
// of anything else, for a file name.
func fileSafe(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range name {
		ok := 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
		if ok {
			b.WriteRune(r)
		} else if !dash {
			b.WriteByte('-')
		}
		dash = !ok
	}
	return b.String()
}

// A Capture stands in for a test in Check and keeps its report (the last
// Errorf) instead of failing: for tests that feed Check a history that
// must be rejected and look at what it said.
type Capture struct {
	testing.TB
	Msg string
}

// Helper does nothing.
func (c *Capture) Helper() {}

// Errorf keeps the formatted report in Msg.
func (c *Capture) Errorf(format string, args ...any) { c.Msg = fmt.Sprintf(format, args...) }
