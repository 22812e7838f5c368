package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitRepo is a repository made for one test, with commits at given times.
type gitRepo struct {
	t   *testing.T
	dir string
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git:", err)
	}
	g := &gitRepo{t, t.TempDir()}
	g.git("", "init", "-q", "-b", "main")
	return g
}

// git runs git in the repository, with commit dates when (if not empty),
// and returns its output, trimmed.
func (g *gitRepo) git(when string, args ...string) string {
	g.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", g.dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if when != "" {
		cmd.Env = append(cmd.Env, "GIT_COMMITTER_DATE="+when, "GIT_AUTHOR_DATE="+when)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// write writes files into the working tree.
func (g *gitRepo) write(files map[string]string) {
	g.t.Helper()
	for name, text := range files {
		file := filepath.Join(g.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o777); err != nil {
			g.t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(text), 0o666); err != nil {
			g.t.Fatal(err)
		}
	}
}

// commit writes files, commits every change at time when and returns the
// commit's hash.
func (g *gitRepo) commit(when string, files map[string]string) string {
	g.t.Helper()
	g.write(files)
	g.git("", "add", "-A")
	g.git(when, "commit", "-q", "--allow-empty", "-m", "at "+when)
	return g.git("", "rev-parse", "HEAD")
}

// versions writes RELEASING.md with a table of versions of these rows.
func (g *gitRepo) versions(rows ...string) {
	g.t.Helper()
	text := "# Releasing\n\n| module | tag |\n|---|---|\n| `m` | `v0.1.0` |\n\n" +
		versionsHeading + "\n\n| version | commit | tags |\n|---|---|---|\n"
	for _, row := range rows {
		text += row + "\n"
	}
	g.write(map[string]string{"RELEASING.md": text + "\n## Next\n\n| v9.9.9 | not a row of the table |\n"})
}

func (g *gitRepo) open() *repo {
	g.t.Helper()
	r, err := openRepo(g.dir)
	if err != nil {
		g.t.Fatal(err)
	}
	return r
}

// history makes the repository of most tests: release A (v0.1.0), then B
// and C on main, and the table says v0.2.0 is pending.
func history(t *testing.T) (g *gitRepo, a, b, c string) {
	g = newGitRepo(t)
	a = g.commit("2026-12-01T23:52:28Z", map[string]string{"go.mod": "module example.com/m\n", "m.go": "package m\n"})
	b = g.commit("2026-12-03T09:37:41+01:00", map[string]string{"n.go": "package m\n"}) // 08:37:41 UTC
	c = g.commit("2026-12-04T10:00:00Z", nil)
	g.versions("| `v0.1.0` | "+a+" | `v0.1.0` |", "| v0.2.0 | pending | |")
	return g, a, b, c
}

func TestTableReadsReleasedAndPendingVersions(t *testing.T) {
	text := "intro\n| v5.0.0 | pending |\n" + versionsHeading + "\n\n| version | commit |\n|:--|--:|\n" +
		"| `v0.1.0` | `" + strings.Repeat("a", 40) + "` | tags |\n| v0.1.1 | " + strings.Repeat("b", 40) + " |\n" +
		"| v0.2.0-rc.1 | pending | |\n\n## After\n\n| v7.0.0 | x |\n"
	tbl, err := parseTable(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(tbl.commits) != 2 || tbl.commits["v0.1.0"] != strings.Repeat("a", 40) || tbl.commits["v0.1.1"] != strings.Repeat("b", 40) {
		t.Errorf("commits = %v, want v0.1.0 and v0.1.1", tbl.commits)
	}
	if tbl.pending != "v0.2.0-rc.1" {
		t.Errorf("pending = %q, want v0.2.0-rc.1 (rows outside the section do not count)", tbl.pending)
	}
}

func TestTableRejectsBadRows(t *testing.T) {
	hash := strings.Repeat("c", 40)
	for name, rows := range map[string]string{
		"pseudo-version":         "| v0.1.1-0.20261203083741-94db135fb13a | " + hash + " |",
		"not canonical":          "| v0.1 | " + hash + " |",
		"not a version":          "| latest | " + hash + " |",
		"short hash":             "| v0.1.0 | 1fb0ed7 |",
		"no commit":              "| v0.1.0 |",
		"two rows":               "| v0.1.0 | " + hash + " |\n| v0.1.0 | pending |",
		"two pending":            "| v0.2.0 | pending |\n| v0.3.0 | pending |",
		"pending not the newest": "| v0.2.0 | " + hash + " |\n| v0.1.5 | pending |",
	} {
		if _, err := parseTable(versionsHeading + "\n| version | commit |\n|---|---|\n" + rows + "\n"); err == nil {
			t.Errorf("%s: parseTable succeeded, want an error", name)
		}
	}
	if _, err := parseTable("# Releasing\n\n| v0.1.0 | " + hash + " |\n"); err == nil || !strings.Contains(err.Error(), versionsHeading) {
		t.Errorf("no section: error %v, want one that names %q", err, versionsHeading)
	}
}

func TestPseudoVersionIsTheCommitsTimeAndNewestRelease(t *testing.T) {
	g, a, b, _ := history(t)
	r := g.open()
	for rev, want := range map[string]string{
		b:      "v0.1.1-0.20261203083741-" + b[:12], // the commit time in UTC, the base v0.1.0 patch-incremented
		b[:7]:  "v0.1.1-0.20261203083741-" + b[:12],
		a:      "v0.1.0", // a release is its version
		"HEAD": "v0.1.1-0.20261204100000-" + g.git("", "rev-parse", "HEAD")[:12],
	} {
		if got, err := r.pseudoVersion(rev); err != nil || got != want {
			t.Errorf("pseudoVersion(%s) = %q, %v; want %q", rev, got, err, want)
		}
	}
	g.versions() // no release: the base is v0.0.0
	if got, err := g.open().pseudoVersion(b); err != nil || got != "v0.0.0-20261203083741-"+b[:12] {
		t.Errorf("with no release, pseudoVersion = %q, %v; want v0.0.0-20261203083741-%s", got, err, b[:12])
	}
}

func TestResolveMapsVersionsToCommits(t *testing.T) {
	g, a, b, _ := history(t)
	r := g.open()
	for version, want := range map[string]string{
		"v0.1.0":                            a,
		"v0.2.0":                            "", // pending: the working tree
		"v0.1.1-0.20261203083741-" + b[:12]: b,
	} {
		if got, err := r.resolve(version); err != nil || got != want {
			t.Errorf("resolve(%s) = %q, %v; want %q", version, got, err, want)
		}
	}
	g.git("", "tag", "v0.0.9", a+"~0")
	if got, err := g.open().resolve("v0.0.9"); err != nil || got != a {
		t.Errorf("resolve of a tag with no row = %q, %v; want %s", got, err, a)
	}
}

func TestResolveRejectsVersionsNoCommitIs(t *testing.T) {
	g, a, b, _ := history(t)
	g.git("", "checkout", "-q", "-b", "side", b)
	side := g.commit("2026-12-05T00:00:00Z", nil)
	g.git("", "checkout", "-q", "main")
	g.versions("| v0.1.0 | "+a+" | |", "| v0.2.0 | pending | |") // the side commit took RELEASING.md
	r := g.open()
	for version, want := range map[string]string{
		"v0.1.1-0.20261203083742-" + b[:12]:    "whose version is v0.1.1-0.20261203083741-" + b[:12], // one second off
		"v0.0.0-20261203083741-" + b[:12]:      "whose version is v0.1.1-0.20261203083741-" + b[:12], // base below v0.1.0
		"v0.1.1-0.20261201235228-" + a[:12]:    "whose version is v0.1.0",
		"v0.1.1-0.20261203083741-0123456789ab": "not in this clone",
		"v0.1.1-0.20261205000000-" + side[:12]: "not in HEAD's history",
		"v0.3.0":                               "neither tagged nor a row",
		"v0.1":                                 "not a canonical version",
	} {
		if _, err := r.resolve(version); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("resolve(%s): error %v, want one that says %q", version, err, want)
		}
	}
}

func TestResolveRejectsATagTheTableContradicts(t *testing.T) {
	g, _, b, _ := history(t)
	g.git("", "tag", "v0.1.0", b)
	if _, err := g.open().resolve("v0.1.0"); err == nil || !strings.Contains(err.Error(), "RELEASING.md's table says") {
		t.Errorf("tag v0.1.0 at another commit than the row: error %v", err)
	}
	g.git("", "tag", "-d", "v0.1.0")
	g.git("", "tag", "v0.2.0", b)
	if _, err := g.open().resolve("v0.2.0"); err == nil || !strings.Contains(err.Error(), "pending") {
		t.Errorf("tag v0.2.0 while its row is pending: error %v", err)
	}
}

func TestResolveInAShallowCloneSaysSo(t *testing.T) {
	g, _, b, _ := history(t)
	clone := t.TempDir()
	if out, err := exec.Command("git", "clone", "-q", "--depth=1", "file://"+g.dir, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone --depth=1: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(clone, "RELEASING.md"), []byte(read(t, filepath.Join(g.dir, "RELEASING.md"))), 0o666); err != nil {
		t.Fatal(err)
	}
	r, err := openRepo(clone)
	if err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{"v0.1.0", "v0.1.1-0.20261203083741-" + b[:12]} {
		if _, err := r.resolve(version); err == nil || !strings.Contains(err.Error(), "shallow") {
			t.Errorf("resolve(%s) in a shallow clone: error %v, want one that says the clone is shallow", version, err)
		}
	}
}

// -commit packs the module as the commit has it, not as the working tree
// has it, and leaves out what the go command leaves out of a zip from git.
func TestCommitPacksTheCommitNotTheWorkingTree(t *testing.T) {
	g := newGitRepo(t)
	a := g.commit("2026-12-01T00:00:00Z", map[string]string{
		"go.mod":         "module example.com/m\n\ngo 1.26.0\n",
		"m.go":           "package m\n\nconst Answer = 1\n",
		"LICENSE":        "the root's licence\n",
		"skip.txt":       "export-ignore leaves this out\n",
		".gitattributes": "skip.txt export-ignore\n",
		"sub/go.mod":     "module example.com/m/sub\n",
		"sub/sub.go":     "package sub\n",
	})
	g.write(map[string]string{"m.go": "package m\n\nconst Answer = 2\n", "new.go": "package m\n", "sub/sub.go": "package sub // changed\n"})
	proxy := t.TempDir()
	var sums bytes.Buffer
	if err := run(&sums, options{proxy: proxy, sums: true, commit: a[:7]}, []string{g.dir + "@v1.0.0", filepath.Join(g.dir, "sub") + "@v1.0.0"}); err != nil {
		t.Fatal(err)
	}
	files := zipFiles(t, filepath.Join(proxy, "example.com", "m", "@v", "v1.0.0.zip"))
	want := map[string]string{
		"example.com/m@v1.0.0/.gitattributes": "skip.txt export-ignore\n",
		"example.com/m@v1.0.0/LICENSE":        "the root's licence\n",
		"example.com/m@v1.0.0/go.mod":         "module example.com/m\n\ngo 1.26.0\n",
		"example.com/m@v1.0.0/m.go":           "package m\n\nconst Answer = 1\n",
	}
	if !mapsEqual(files, want) {
		t.Errorf("the root's zip holds %q, want %q", files, want)
	}
	files = zipFiles(t, filepath.Join(proxy, "example.com", "m", "sub", "@v", "v1.0.0.zip"))
	want = map[string]string{
		"example.com/m/sub@v1.0.0/LICENSE": "the root's licence\n",
		"example.com/m/sub@v1.0.0/go.mod":  "module example.com/m/sub\n",
		"example.com/m/sub@v1.0.0/sub.go":  "package sub\n",
	}
	if !mapsEqual(files, want) {
		t.Errorf("the nested module's zip holds %q, want %q (its files at the commit, the root's LICENSE)", files, want)
	}
	if got := read(t, filepath.Join(proxy, "example.com", "m", "@v", "v1.0.0.mod")); got != "module example.com/m\n\ngo 1.26.0\n" {
		t.Errorf(".mod = %q, want the commit's go.mod", got)
	}
	if n := strings.Count(sums.String(), "\n"); n != 4 {
		t.Errorf("-sums printed %d lines, want 4:\n%s", n, sums.String())
	}
	if err := run(new(bytes.Buffer), options{proxy: proxy, commit: "0123456789ab"}, []string{g.dir + "@v1.0.1"}); err == nil || !strings.Contains(err.Error(), "not in this clone") {
		t.Errorf("-commit of a commit the clone lacks: error %v", err)
	}
}

func TestProxyListHasNoPseudoVersionsLatestHasTheNewest(t *testing.T) {
	dir, proxy := tinyModule(t), t.TempDir()
	if err := run(new(bytes.Buffer), options{proxy: proxy}, []string{dir + "@v1.2.3", dir + "@v1.2.4-0.20261203083741-94db135fb13a"}); err != nil {
		t.Fatal(err)
	}
	at := filepath.Join(proxy, "example.com", "m", "@v")
	if got := read(t, filepath.Join(at, "list")); got != "v1.2.3\n" {
		t.Errorf("list = %q, want only v1.2.3", got)
	}
	if _, err := os.Stat(filepath.Join(at, "v1.2.4-0.20261203083741-94db135fb13a.zip")); err != nil {
		t.Errorf("the pseudo-version is not served: %v", err)
	}
	var latest struct{ Version string }
	if err := json.Unmarshal([]byte(read(t, filepath.Join(proxy, "example.com", "m", "@latest"))), &latest); err != nil || latest.Version != "v1.2.4-0.20261203083741-94db135fb13a" {
		t.Errorf("@latest: version %q, error %v; want the pseudo-version, as the proxy's of an untagged commit", latest.Version, err)
	}
	dir2, proxy2 := tinyModule(t), t.TempDir()
	if err := run(new(bytes.Buffer), options{proxy: proxy2}, []string{dir2 + "@v0.0.0-20261203083741-94db135fb13a"}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(proxy2, "example.com", "m", "@v", "list")); got != "" {
		t.Errorf("list of a module with only a pseudo-version = %q, want empty", got)
	}
}

func zipFiles(t *testing.T, file string) map[string]string {
	t.Helper()
	z, err := zip.OpenReader(file)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	files := map[string]string{}
	for _, f := range z.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name] = string(data)
	}
	return files
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	return !slices.ContainsFunc(keys, func(k string) bool { v, ok := b[k]; return !ok || v != a[k] })
}

// The go command, fetching straight from the git repository, gives a
// commit the version pseudoVersion gives it, and its zip the hashes that
// -sums -commit prints. git's url.insteadOf points the module's GitHub
// address at the test's repository; nothing goes over the network.
func TestPseudoVersionAndZipAreTheGoCommands(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	g := newGitRepo(t)
	a := g.commit("2026-12-01T23:52:28Z", map[string]string{"go.mod": "module github.com/evsync-test/m\n\ngo 1.26.0\n", "m.go": "package m\n", "LICENSE": "licence\n"})
	b := g.commit("2026-12-03T09:37:41+01:00", map[string]string{"n.go": "package m\n\nconst N = 1\n", "sub/go.mod": "module github.com/evsync-test/m/sub\n"})
	g.git("", "tag", "v0.1.0", a)
	g.versions("| v0.1.0 | " + a + " | |")
	version, err := g.open().pseudoVersion(b)
	if err != nil {
		t.Fatal(err)
	}
	var sums bytes.Buffer
	if err := run(&sums, options{sums: true, commit: b}, []string{g.dir + "@" + version}); err != nil {
		t.Fatal(err)
	}

	config := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(config, []byte("[url \"file://"+g.dir+"\"]\n\tinsteadOf = https://github.com/evsync-test/m\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goCmd, "mod", "download", "-json", "github.com/evsync-test/m@"+b[:12])
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-modcacherw", "GOPROXY=direct", "GONOSUMDB=github.com/evsync-test",
		"GOMODCACHE="+t.TempDir(), "GIT_CONFIG_GLOBAL="+config, "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download: %v\n%s", err, out)
	}
	var dl struct{ Version, Sum, GoModSum string }
	if err := json.Unmarshal(out, &dl); err != nil {
		t.Fatal(err)
	}
	if dl.Version != version {
		t.Errorf("the go command gives %s the version %s, pseudoVersion %s", b[:12], dl.Version, version)
	}
	want := "github.com/evsync-test/m " + dl.Version + " " + dl.Sum + "\ngithub.com/evsync-test/m " + dl.Version + "/go.mod " + dl.GoModSum + "\n"
	if sums.String() != want {
		t.Errorf("-sums -commit printed\n%s\nthe go command's go.sum lines are\n%s", sums.String(), want)
	}
}
