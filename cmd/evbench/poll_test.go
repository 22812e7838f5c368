package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestDefaultRunKeepsPollsHeadline: without -workloads, the run has every
// workload of the semaphore, readyq, signal and notify groups and, of the
// poll group, only its headline, one ready among 10,000. Naming the poll
// group, even in a list equal to the default one, runs all of it.
func TestDefaultRunKeepsPollsHeadline(t *testing.T) {
	names := func(args ...string) []string {
		t.Helper()
		cfg, err := parseConfig(args, new(bytes.Buffer))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, w := range cfg.workloads() {
			out = append(out, w.name())
		}
		return out
	}
	var want []string
	for _, w := range workloadsOf([]string{"semaphore", "readyq", "signal", "notify"}, nil) {
		want = append(want, w.name())
	}
	want = append(want, "poll wait n=10000")
	if got := names(); !slices.Equal(got, want) {
		t.Errorf("the default run's workloads:\n%q\nwant\n%q", got, want)
	}
	if got := names("-quick", "-json"); !slices.Equal(got, want) {
		t.Errorf("-quick -json: %q, want the default run's", got)
	}
	var poll []string
	for _, w := range pollWorkloads() {
		poll = append(poll, w.name())
	}
	if got := names("-workloads", "poll"); !slices.Equal(got, poll) {
		t.Errorf("-workloads poll: %q, want the group's workloads %q", got, poll)
	}
	if got := names("-workloads", strings.Join(defaultGroups, ",")); len(got) != len(want)-1+len(poll) {
		t.Errorf("-workloads naming the default groups runs %d workloads, want every one of them (%d)", len(got), len(want)-1+len(poll))
	}
	if got := names("-match", "poll"); !slices.Equal(got, []string{"poll wait n=10000"}) {
		t.Errorf("-match poll in the default run: %q, want the headline only", got)
	}
}

// TestDefaultRunSaysWhatItKeeps: the default run's table says which poll
// workload it keeps and how to run them all; a run of the whole group
// does not.
func TestDefaultRunSaysWhatItKeeps(t *testing.T) {
	note := fmt.Sprintf(`poll: the default run keeps "poll wait n=10000" of its %d workloads; -workloads poll runs them all`, len(pollWorkloads()))
	for _, tc := range []struct {
		args []string
		says bool
	}{
		{[]string{"-match", "poll wait n=10000 impl=evsync", "-duration", "2ms", "-repeat", "1"}, true},
		{[]string{"-workloads", "poll", "-match", "poll wait n=10 impl=evsync", "-duration", "2ms", "-repeat", "1"}, false},
	} {
		cfg, err := parseConfig(tc.args, new(bytes.Buffer))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := run(cfg, &out, new(bytes.Buffer)); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(out.String(), "\n"+note+"\n"); got != tc.says {
			t.Errorf("%q: says %q: %v, want %v:\n%s", tc.args, note, got, tc.says, out.String())
		}
		if !strings.Contains(out.String(), "\ncolumns (poll):\n") {
			t.Errorf("%q: the columns' heading does not name the poll group:\n%s", tc.args, out.String())
		}
	}
}
