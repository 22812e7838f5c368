package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tinyModule writes a small module with a nested module and a VCS
// directory, neither of which belongs in its zip, and returns its
// directory.
func tinyModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":        "module example.com/m\n\ngo 1.26.0\n",
		"m.go":          "package m\n\nconst Answer = 42\n",
		"sub/go.mod":    "module example.com/m/sub\n",
		"sub/sub.go":    "package sub\n",
		".git/HEAD":     "ref: refs/heads/main\n",
		"inner/i.go":    "package inner\n",
		"inner/data.md": "kept\n",
	}
	for name, text := range files {
		file := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestProxyLayout(t *testing.T) {
	dir, proxy := tinyModule(t), t.TempDir()
	if err := run(new(bytes.Buffer), options{proxy: proxy}, []string{dir + "@v1.2.3", dir + "@v1.2.3", dir + "@v1.3.0"}); err != nil {
		t.Fatal(err)
	}
	at := filepath.Join(proxy, "example.com", "m", "@v")
	if got := read(t, filepath.Join(at, "list")); got != "v1.2.3\nv1.3.0\n" {
		t.Errorf("list = %q, want each version once", got)
	}
	if got := read(t, filepath.Join(at, "v1.2.3.mod")); got != read(t, filepath.Join(dir, "go.mod")) {
		t.Errorf(".mod = %q, want the module's go.mod", got)
	}
	var info struct{ Version string }
	if err := json.Unmarshal([]byte(read(t, filepath.Join(at, "v1.2.3.info"))), &info); err != nil || info.Version != "v1.2.3" {
		t.Errorf(".info: version %q, error %v; want v1.2.3", info.Version, err)
	}
	z, err := zip.OpenReader(filepath.Join(at, "v1.2.3.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var names []string
	for _, f := range z.File {
		names = append(names, f.Name)
	}
	slices.Sort(names)
	want := []string{"example.com/m@v1.2.3/go.mod", "example.com/m@v1.2.3/inner/data.md", "example.com/m@v1.2.3/inner/i.go", "example.com/m@v1.2.3/m.go"}
	if !slices.Equal(names, want) {
		t.Errorf("zip holds %q, want %q (no nested module, no .git)", names, want)
	}
}

// The go command, given the proxy, downloads the version and computes the
// same go.sum lines as -sums prints.
func TestSumsAreTheGoCommands(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	dir, proxy := tinyModule(t), t.TempDir()
	var sums bytes.Buffer
	if err := run(&sums, options{proxy: proxy, sums: true}, []string{dir + "@v1.2.3"}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goCmd, "mod", "download", "-json", "example.com/m@v1.2.3")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-modcacherw", "GOPROXY=file://"+filepath.ToSlash(proxy),
		"GONOSUMDB=example.com", "GOMODCACHE="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download: %v\n%s", err, out)
	}
	var dl struct{ Sum, GoModSum string }
	if err := json.Unmarshal(out, &dl); err != nil {
		t.Fatal(err)
	}
	want := "example.com/m v1.2.3 " + dl.Sum + "\nexample.com/m v1.2.3/go.mod " + dl.GoModSum + "\n"
	if sums.String() != want {
		t.Errorf("-sums printed\n%s\nthe go command's go.sum lines are\n%s", sums.String(), want)
	}
}

func TestBadArguments(t *testing.T) {
	dir := tinyModule(t)
	for _, arg := range []string{dir, dir + "@v1.2", dir + "@latest", t.TempDir() + "@v1.0.0"} {
		if err := run(new(bytes.Buffer), options{proxy: t.TempDir(), sums: true}, []string{arg}); err == nil {
			t.Errorf("run(%q) succeeded, want an error", strings.TrimPrefix(arg, dir))
		}
	}
}

func read(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
