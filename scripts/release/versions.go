package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	modzip "golang.org/x/mod/zip"
)

// versionsHeading opens the section of RELEASING.md that holds the table
// of versions.
const versionsHeading = "## Versions"

// pending is what the commit column of the table says for the version the
// working tree is being prepared to become.
const pending = "pending"

// A table is RELEASING.md's table of the root module's versions.
type table struct {
	commits map[string]string // each released version's commit, a full hash
	pending string            // the version being prepared, or ""
}

var fullHash = regexp.MustCompile(`^[0-9a-f]{40}$`)

// parseTable reads the table of versions from the text of RELEASING.md.
// Its rows are | version | commit | ... |, where commit is a full hash or
// the word pending. Other rows of the section (its header and the line
// under it) have no version in their first cell and are skipped.
func parseTable(text string) (table, error) {
	t := table{commits: map[string]string{}}
	in, found := false, false
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "# ") {
			in = line == versionsHeading
			found = found || in
			continue
		}
		if !in || !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.Trim(strings.TrimSpace(cells[i]), "`")
		}
		v := cells[0]
		if v == "version" || strings.Trim(v, "-: ") == "" {
			continue // the header, or the line under it
		}
		if len(cells) < 2 {
			return table{}, fmt.Errorf("RELEASING.md:%d: a row of %q needs a version and a commit", n, versionsHeading)
		}
		if !semver.IsValid(v) || semver.Canonical(v) != v || module.IsPseudoVersion(v) || semver.Build(v) != "" {
			return table{}, fmt.Errorf("RELEASING.md:%d: %q is not a release version such as v0.1.0", n, v)
		}
		if _, dup := t.commits[v]; dup || v == t.pending {
			return table{}, fmt.Errorf("RELEASING.md:%d: %s has two rows", n, v)
		}
		switch c := cells[1]; {
		case c == pending:
			if t.pending != "" {
				return table{}, fmt.Errorf("RELEASING.md:%d: %s and %s are both pending: one release is prepared at a time", n, t.pending, v)
			}
			t.pending = v
		case fullHash.MatchString(c):
			t.commits[v] = c
		default:
			return table{}, fmt.Errorf("RELEASING.md:%d: the commit of %s is %q, want a full hash (40 hex digits) or %q", n, v, c, pending)
		}
	}
	if err := sc.Err(); err != nil {
		return table{}, err
	}
	if !found {
		return table{}, fmt.Errorf("RELEASING.md has no %q section", versionsHeading)
	}
	for v := range t.commits {
		if t.pending != "" && semver.Compare(t.pending, v) <= 0 {
			return table{}, fmt.Errorf("RELEASING.md: pending %s is not newer than released %s", t.pending, v)
		}
	}
	return t, nil
}

// A repo is the git repository the modules are in.
type repo struct {
	dir string // its top-level directory
	tbl table  // RELEASING.md's table, read from the working tree
}

// openRepo opens the repository whose top level is dir and reads its
// RELEASING.md.
func openRepo(dir string) (*repo, error) {
	r := &repo{dir: dir}
	top, err := r.git("rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	r.dir = top
	text, err := os.ReadFile(filepath.Join(top, "RELEASING.md"))
	if err != nil {
		return nil, err
	}
	if r.tbl, err = parseTable(string(text)); err != nil {
		return nil, err
	}
	return r, nil
}

// git runs git in the repository and returns its output, trimmed.
func (r *repo) git(args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", r.dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// commit returns the full hash of the commit rev names. A commit the
// clone lacks is an error that says so, and says if the clone is shallow.
func (r *repo) commit(rev string) (string, error) {
	if h, err := r.git("rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}"); err == nil {
		return h, nil
	}
	hint := ""
	if shallow, _ := r.git("rev-parse", "--is-shallow-repository"); shallow == "true" {
		hint = "; this clone is shallow: run `git fetch --unshallow`, or check in a full clone"
	}
	return "", fmt.Errorf("commit %s is not in this clone%s", rev, hint)
}

// isAncestor reports whether commit a is in the history of commit b (or is b).
func (r *repo) isAncestor(a, b string) (bool, error) {
	cmd := exec.Command("git", "-C", r.dir, "merge-base", "--is-ancestor", a, b)
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return false, nil
	default:
		return false, fmt.Errorf("git merge-base --is-ancestor %s %s: %v", a, b, err)
	}
}

// commitTime returns the commit time of a commit, in UTC: the time the go
// command puts in a pseudo-version.
func (r *repo) commitTime(commit string) (time.Time, error) {
	out, err := r.git("show", "-s", "--format=%ct", commit)
	if err != nil {
		return time.Time{}, err
	}
	sec, err := strconv.ParseInt(out, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("commit time of %s: %v", commit, err)
	}
	return time.Unix(sec, 0).UTC(), nil
}

// releases returns each released version of the root module and its
// commit: the rows of the table and the tags v*. A tag and a row that
// disagree are an error.
func (r *repo) releases() (map[string]string, error) {
	out, err := r.git("tag", "--list", "v*")
	if err != nil {
		return nil, err
	}
	rel := map[string]string{}
	for v, c := range r.tbl.commits {
		rel[v] = c
	}
	for _, tag := range strings.Fields(out) {
		if !semver.IsValid(tag) || semver.Canonical(tag) != tag {
			continue
		}
		c, err := r.commit("refs/tags/" + tag)
		if err != nil {
			return nil, err
		}
		if row, ok := rel[tag]; ok && row != c {
			return nil, fmt.Errorf("tag %s is commit %s, but RELEASING.md's table says %s", tag, c, row)
		}
		if tag == r.tbl.pending {
			return nil, fmt.Errorf("%s is tagged (commit %s), but RELEASING.md's table says it is pending: write its commit in the table", tag, c)
		}
		rel[tag] = c
	}
	return rel, nil
}

// pseudoVersion returns the version the go command gives the commit rev
// names: a released version if the commit is one, else a pseudo-version
// whose base is the newest release in the commit's history, and whose time
// is the commit time in UTC. A release counts once it has a row in the
// table, before its tag is pushed; the proxy accepts a pseudo-version on
// such a base only once the base's tag is pushed.
func (r *repo) pseudoVersion(rev string) (string, error) {
	c, err := r.commit(rev)
	if err != nil {
		return "", err
	}
	rel, err := r.releases()
	if err != nil {
		return "", err
	}
	base := ""
	for v, vc := range rel {
		if vc == c {
			if semver.Compare(v, base) > 0 {
				base = v
			}
		}
	}
	if base != "" {
		return base, nil // the commit is a release
	}
	for v, vc := range rel {
		if semver.Compare(v, base) <= 0 {
			continue
		}
		ok, err := r.isAncestor(vc, c)
		if err != nil {
			return "", err
		}
		if ok {
			base = v
		}
	}
	t, err := r.commitTime(c)
	if err != nil {
		return "", err
	}
	return module.PseudoVersion("", base, t, c[:12]), nil
}

// resolve returns the commit the root module's version is, or "" if the
// version is the pending one, which the working tree is. A pseudo-version
// must be the one the go command gives its commit, and that commit must be
// in HEAD's history, so that the proxy can fetch it once HEAD is pushed.
func (r *repo) resolve(version string) (string, error) {
	if !semver.IsValid(version) || semver.Canonical(version) != version {
		return "", fmt.Errorf("%q is not a canonical version", version)
	}
	if !module.IsPseudoVersion(version) {
		rel, err := r.releases()
		if err != nil {
			return "", err
		}
		if c, ok := rel[version]; ok {
			if _, err := r.commit(c); err != nil {
				return "", fmt.Errorf("%s: %v", version, err)
			}
			return c, nil
		}
		if version == r.tbl.pending {
			return "", nil
		}
		return "", fmt.Errorf("%s is neither tagged nor a row of RELEASING.md's table of versions (released, or pending while it is prepared)", version)
	}
	rev, err := module.PseudoVersionRev(version)
	if err != nil {
		return "", err
	}
	c, err := r.commit(rev)
	if err != nil {
		return "", fmt.Errorf("%s: %v", version, err)
	}
	want, err := r.pseudoVersion(c)
	if err != nil {
		return "", err
	}
	if want != version {
		return "", fmt.Errorf("%s names commit %s, whose version is %s", version, c[:12], want)
	}
	head, err := r.commit("HEAD")
	if err != nil {
		return "", err
	}
	ok, err := r.isAncestor(c, head)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("%s: commit %s is not in HEAD's history; require a commit of main, which the proxy can fetch", version, c[:12])
	}
	return c, nil
}

// gitModule is the module of directory subdir ("" for the root) as of a
// commit.
type gitModule struct {
	r      *repo
	commit string
	subdir string
}

// goMod returns the module's go.mod at the commit.
func (g gitModule) goMod() ([]byte, error) {
	out, err := exec.Command("git", "-C", g.r.dir, "show", g.commit+":"+path.Join(g.subdir, "go.mod")).Output()
	if err != nil {
		return nil, fmt.Errorf("go.mod of %s at %s: %v", g.dirName(), g.commit, err)
	}
	return out, nil
}

func (g gitModule) dirName() string {
	if g.subdir == "" {
		return "the root module"
	}
	return g.subdir
}

// writeZip writes the module's zip as the go command makes it from git:
// git archive of the commit (which honours export-ignore), less what a
// module zip leaves out, with the root's LICENSE in a nested module that
// has none.
func (g gitModule) writeZip(w io.Writer, m module.Version) error {
	cmd := exec.Command("git", "-C", g.r.dir, "-c", "core.autocrlf=input", "-c", "core.eol=lf", "archive", "--format=zip", g.commit)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git archive %s: %v: %s", g.commit, err, strings.TrimSpace(stderr.String()))
	}
	zr, err := zip.NewReader(bytes.NewReader(out), int64(len(out)))
	if err != nil {
		return err
	}
	prefix := ""
	if g.subdir != "" {
		prefix = g.subdir + "/"
	}
	var files []modzip.File
	var rootLicense modzip.File
	ownLicense := false
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		if f.Name == "LICENSE" {
			rootLicense = archived{f, "LICENSE"}
		}
		if name, ok := strings.CutPrefix(f.Name, prefix); ok {
			files = append(files, archived{f, name})
			ownLicense = ownLicense || name == "LICENSE"
		}
	}
	if g.subdir != "" && !ownLicense && rootLicense != nil {
		files = append(files, rootLicense)
	}
	return modzip.Create(w, m, files)
}

// archived is a file of a git archive, named as it is in a module zip.
type archived struct {
	f    *zip.File
	name string
}

// Path is the file's path in the module zip (modzip.File).
func (a archived) Path() string { return a.name }

// Lstat describes the file as the archive has it (modzip.File).
func (a archived) Lstat() (fs.FileInfo, error) { return a.f.FileInfo(), nil }

// Open opens the file's contents in the archive (modzip.File).
func (a archived) Open() (io.ReadCloser, error) { return a.f.Open() }
