package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// config is what the command line asks for.
type config struct {
	groups   []string      // workload groups, in groupOrder's order
	match    string        // keep the cases whose "workload impl=name" contains it
	duration time.Duration // per run; 0: each group's default
	repeat   int           // runs per case
	format   string        // "table", "json" or "bench"
	plotDir  string        // where -plot writes its charts; "" for no charts
	cpus     []int         // -cpu: GOMAXPROCS values for the scaling group; nil: as the process has it
	list     bool          // print the cases instead of running them
	progress bool          // draw a progress line on stderr (a terminal)
	headline bool          // the default run: a group with headline workloads runs only those
}

// groupOrder lists the workload groups in the order they run, with what
// each one measures (for -help and the table's heading).
var groupOrder = []struct{ name, about string }{
	{"semaphore", "Acquire+Release, alone, contended, under a standing queue and with work after each release, against x/sync, a channel, sync.Cond, eventfd; evsync strict and with eventual fairness"},
	{"readyq", "a de-duplicating work queue under producers and consumers, against a mutex+map queue"},
	{"signal", "sum-and-reset notification: add+take, ping-pong, 4 writers, an observer"},
	{"notify", "paced writers and one reader: what waking the reader costs per write, coalescing policies"},
	{"sweep", "the notify workload across write rates (100/s to unthrottled): the coalescing trade-off"},
	{"scaling", "semaphore cost against the number of goroutines (1 to 128), limits 1 and 4; with -cpu, g 8 and 64 at each GOMAXPROCS"},
	{"poll", "one ready source among 10 to 100,000 registered: a poll.Set against reflect.Select, a goroutine per source, and epoll; a wakeup across goroutines at 1,000 registered; 100,000 deadlines expiring, against a timer each"},
}

// defaultGroups run when -workloads is not given (without -plot). A
// group with headline workloads (poll) runs only those there: the whole
// group would double the run's length, and one workload shows what it
// is for. -workloads names a group to run all of it.
var defaultGroups = []string{"semaphore", "readyq", "signal", "notify", "poll"}

// plotGroups are the groups whose results -plot draws; they are the
// default groups when -plot is given.
var plotGroups = []string{"sweep", "scaling", "poll"}

// Default run lengths: long enough for stable medians, short enough that
// the default run stays under a minute. The sweep's low rates need a
// second: at 100 writes/s a shorter run holds too few writes for the
// process's CPU time to resolve.
const (
	defaultDuration = 120 * time.Millisecond
	sweepDuration   = time.Second
	quickDuration   = 40 * time.Millisecond
	defaultRepeat   = 3
	benchRepeat     = 6 // benchstat's least for a 95 % confidence interval
)

// errHelp is returned for -help, after the usage has been printed.
var errHelp = flag.ErrHelp

// usageError is a command line that asks for something that does not
// exist or cannot be run; evbench exits with status 2.
type usageError struct{ msg string }

// Error returns the message, which says what was asked for and why not.
func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// defaultPlotDir is where -plot writes without -plotdir: a directory of
// its own in the current one, so that a run replaces the committed
// charts (cmd/evbench/charts) only when -plotdir names them.
const defaultPlotDir = "evbench-charts"

// removedFlags are the flags that once existed, with what replaced them.
// They are not defined, so -help does not list them, but using one says
// what to write instead.
var removedFlags = map[string]string{
	"seed":  "-seed was renamed: the seed workload (paced writers, one reader) is -workloads notify",
	"sweep": "-sweep was renamed: the write-rate sweep is -workloads sweep",
}

// flags is the command line as parsed, before parseConfig checks it.
type flags struct {
	fs                      *flag.FlagSet
	cfg                     config
	workloads, plotDir, cpu string
	quick, asJSON, plot     bool
}

// newFlags defines evbench's flags. The set prints nothing itself:
// parseConfig writes the usage for -help and main the errors.
func newFlags() *flags {
	f := &flags{fs: flag.NewFlagSet("evbench", flag.ContinueOnError)}
	fs, cfg := f.fs, &f.cfg
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&f.workloads, "workloads", "", "comma-separated workload groups to run, or \"all\" (default "+strings.Join(defaultGroups, ",")+", of poll only "+headlineText()+"; with -plot, "+strings.Join(plotGroups, ",")+")")
	fs.BoolVar(&f.quick, "quick", false, fmt.Sprintf("a smoke run: %v per run, one run per case", quickDuration))
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object per row (the same as -format json)")
	fs.StringVar(&cfg.match, "match", "", "run only the cases whose \"workload impl=name\" contains this text")
	fs.DurationVar(&cfg.duration, "duration", 0, fmt.Sprintf("how long each run lasts (default %v; %v for the sweep)", defaultDuration, sweepDuration))
	fs.IntVar(&cfg.repeat, "repeat", defaultRepeat, fmt.Sprintf("runs per case; rows show their median and spread (%d with -format bench, what benchstat needs; 1 with -quick)", benchRepeat))
	fs.StringVar(&cfg.format, "format", "table", "output: table, json (one object per row) or bench (Go benchmark lines, for benchstat)")
	fs.BoolVar(&f.plot, "plot", false, "also draw SVG charts of the sweep and scaling workloads, into -plotdir")
	fs.StringVar(&f.plotDir, "plotdir", defaultPlotDir, "the directory -plot writes into, made if missing (implies -plot); the README's charts, cmd/evbench/charts, change only if named here")
	fs.StringVar(&f.cpu, "cpu", "", "comma-separated GOMAXPROCS values, like go test -cpu: the scaling workloads run at each, with 8 and 64 goroutines only (default: the current GOMAXPROCS and every goroutine count); without -workloads, it runs the scaling group")
	fs.BoolVar(&cfg.list, "list", false, "list the cases that would run, and exit")
	return f
}

// usage writes -help's text: the flags and the workload groups.
func (f *flags) usage(w io.Writer) {
	fmt.Fprintf(w, "usage: evbench [flags]\n\nflags:\n")
	f.fs.SetOutput(w)
	f.fs.PrintDefaults()
	f.fs.SetOutput(io.Discard)
	fmt.Fprintf(w, "\nworkload groups:\n")
	for _, g := range groupOrder {
		fmt.Fprintf(w, "  %-10s %s\n", g.name, g.about)
	}
}

// parseError turns the flag package's error into a usageError, with the
// new spelling of a removed or changed flag.
func parseError(err error) error {
	if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
		if hint, ok := removedFlags[name]; ok {
			return usageError{hint}
		}
	}
	if strings.Contains(err.Error(), "for -plot:") {
		return usagef("-plot takes no directory now; -plotdir DIR names one (default %s)", defaultPlotDir)
	}
	return usageError{err.Error()}
}

// parseConfig reads the command line; -help writes the usage to stderr.
// Errors are usageErrors (or errHelp).
func parseConfig(args []string, stderr io.Writer) (config, error) {
	f := newFlags()
	if err := f.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			f.usage(stderr)
			return config{}, errHelp
		}
		return config{}, parseError(err)
	}
	cfg := f.cfg
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	switch {
	case f.plot && f.fs.NArg() > 0:
		return cfg, usagef("-plot takes no directory now; -plotdir %s names one", f.fs.Arg(0))
	case f.fs.NArg() > 0:
		return cfg, usagef("unexpected argument %q (flags only)", f.fs.Arg(0))
	case set["duration"] && cfg.duration <= 0:
		return cfg, usagef("-duration %v: a run must last longer than 0", cfg.duration)
	case cfg.repeat < 1:
		return cfg, usagef("-repeat %d: a case must run at least once", cfg.repeat)
	}
	if f.asJSON {
		if set["format"] && cfg.format != "json" {
			return cfg, usagef("-json and -format %s ask for two outputs", cfg.format)
		}
		cfg.format = "json"
	}
	if !slices.Contains([]string{"table", "json", "bench"}, cfg.format) {
		return cfg, usagef("-format %q: the formats are table, json and bench", cfg.format)
	}
	switch {
	case set["repeat"]:
	case f.quick:
		cfg.repeat = 1
	case cfg.format == "bench":
		cfg.repeat = benchRepeat
	}
	if f.quick && !set["duration"] {
		cfg.duration = quickDuration
	}
	if f.plot || set["plotdir"] {
		cfg.plotDir = f.plotDir
	}
	if set["cpu"] {
		cpus, err := parseCPUs(f.cpu)
		if err != nil {
			return cfg, err
		}
		cfg.cpus = cpus
	}
	return withGroups(cfg, f.workloads)
}

// parseCPUs reads -cpu: positive GOMAXPROCS values, each once, in the
// order given.
func parseCPUs(list string) ([]int, error) {
	var cpus []int
	for field := range strings.SplitSeq(list, ",") {
		field = strings.TrimSpace(field)
		n, err := strconv.Atoi(field)
		switch {
		case err != nil || n < 1:
			return nil, usagef("-cpu %q: %q is not a positive number of processors (write a list like 1,2,4)", list, field)
		case slices.Contains(cpus, n):
			return nil, usagef("-cpu %q: %d is listed twice", list, n)
		}
		cpus = append(cpus, n)
	}
	return cpus, nil
}

// withGroups sets cfg's groups from -workloads, checking them against
// -plot and -cpu.
func withGroups(cfg config, workloads string) (config, error) {
	groups, err := parseGroups(workloads, cfg.plotDir != "", cfg.cpus != nil)
	if err != nil {
		return cfg, err
	}
	cfg.groups = groups
	cfg.headline = workloads == "" && slices.Equal(groups, defaultGroups)
	if cfg.plotDir != "" && !slices.ContainsFunc(groups, func(g string) bool { return slices.Contains(plotGroups, g) }) {
		return cfg, usagef("-plot draws the %s workloads; -workloads %s runs neither", strings.Join(plotGroups, " and "), workloads)
	}
	if cfg.cpus != nil && !slices.Contains(groups, "scaling") {
		return cfg, usagef("-cpu sets GOMAXPROCS for the scaling workloads; -workloads %s does not run them", workloads)
	}
	if cfg.cpus != nil && len(cfg.cpus) < 2 && cfg.plotDir != "" {
		return cfg, usagef("-plot with -cpu draws ns/op against GOMAXPROCS; -cpu %d gives it one point (list two values or more)", cfg.cpus[0])
	}
	return cfg, nil
}

// parseGroups turns -workloads into groups in run order. Without it, -plot
// runs the groups it draws, and -cpu alone the scaling group.
func parseGroups(list string, plotting, cpus bool) ([]string, error) {
	if list == "" {
		switch {
		case plotting:
			return plotGroups, nil
		case cpus:
			return []string{"scaling"}, nil
		}
		return defaultGroups, nil
	}
	want := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "all" {
			for _, g := range groupOrder {
				want[g.name] = true
			}
			continue
		}
		if !slices.ContainsFunc(groupOrder, func(g struct{ name, about string }) bool { return g.name == name }) {
			return nil, usagef("unknown workload group %q; the groups are %s (or all)", name, strings.Join(groupNames(), ", "))
		}
		want[name] = true
	}
	var out []string
	for _, g := range groupOrder {
		if want[g.name] {
			out = append(out, g.name)
		}
	}
	return out, nil
}

func groupNames() []string {
	var names []string
	for _, g := range groupOrder {
		names = append(names, g.name)
	}
	return names
}

// workloads is the workloads cfg runs, in order: those of its groups (in
// the default run only the headlines of a group that has any), then the
// cases -match keeps.
func (c config) workloads() []workload {
	ws := workloadsOf(c.groups, c.cpus)
	if c.headline {
		ws = headlines(ws)
	}
	return selectCases(ws, c.match)
}

// headlines keeps, of each group that has headline workloads, only
// those, and every workload of the other groups.
func headlines(ws []workload) []workload {
	has := map[string]bool{}
	for _, w := range ws {
		has[w.group] = has[w.group] || w.headline
	}
	return slices.DeleteFunc(slices.Clone(ws), func(w workload) bool { return has[w.group] && !w.headline })
}

// headlineText names the workloads the default run keeps of the groups
// it runs in part, quoted: "poll wait n=10000".
func headlineText() string {
	var names []string
	for _, w := range workloadsOf(defaultGroups, nil) {
		if w.headline {
			names = append(names, strconv.Quote(w.name()))
		}
	}
	return strings.Join(names, ", ")
}

// runFor is how long each run of a group's cases lasts.
func (c config) runFor(group string) time.Duration {
	switch {
	case c.duration > 0:
		return c.duration
	case group == "sweep":
		return sweepDuration
	}
	return defaultDuration
}

// runLen is how long each run of w's cases lasts: its fixed length, or
// its group's.
func (c config) runLen(w workload) time.Duration {
	if w.fixed > 0 {
		return w.fixed
	}
	return c.runFor(w.group)
}
