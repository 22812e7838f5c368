package readmecheck_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEPointsToTheModelExamplesWhereTheyAre: go doc prints no
// examples, so the README must not send a reader there for them. Each
// model example file the README names exists and declares the Example
// and Fuzz functions named beside it.
func TestREADMEPointsToTheModelExamplesWhereTheyAre(t *testing.T) {
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for i, line := range strings.Split(text, "\n") {
		l := strings.ToLower(line)
		if strings.Contains(l, "go doc") && strings.Contains(l, "example") && !strings.Contains(l, "does not") {
			t.Errorf("README.md:%d: go doc does not print examples: %s", i+1, line)
		}
	}
	item := regexp.MustCompile("(?m)^- (`(?:Example|Fuzz)[^\n]*(?:\n  [^\n]*)*)")
	file := regexp.MustCompile("`(model/example_\\w+_test\\.go)`")
	fn := regexp.MustCompile("`((?:Example|Fuzz)\\w+)`")
	checked := 0
	for _, m := range item.FindAllStringSubmatch(text, -1) {
		f := file.FindStringSubmatch(m[1])
		if f == nil {
			t.Errorf("README.md: %q names an example but not the file that holds it", m[1])
			continue
		}
		src, err := os.ReadFile(filepath.Join("../../..", f[1]))
		if err != nil {
			t.Errorf("README.md names %s: %v", f[1], err)
			continue
		}
		for _, name := range fn.FindAllStringSubmatch(m[1], -1) {
			if !strings.Contains(string(src), "\nfunc "+name[1]+"(") {
				t.Errorf("README.md: %s is not declared in %s", name[1], f[1])
			}
			checked++
		}
	}
	if checked < 3 {
		t.Errorf("found %d model examples named in README.md, want ExampleLimiter_pool, ExampleReadyQ_jobQueue and FuzzJobQueue", checked)
	}
}
