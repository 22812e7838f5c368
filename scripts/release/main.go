// Command release packs modules of this repository as the Go module proxy
// will serve them once they are tagged, so that a release can be tried
// before anything is tagged. It also maps the root module's versions to
// commits, as RELEASING.md's table of versions and the tags record them.
//
// Each argument is a module directory and the version it is to have:
//
//	release -proxy DIR ../..@v0.1.0 ../../kube@v0.1.0
//	release -sums ../..@v0.1.0
//	release -proxy DIR -commit 1fb0ed7 ../..@v0.1.0
//
// With -proxy it writes a file-system GOPROXY into DIR (list, .info, .mod
// and .zip of each version), which a consumer puts first in its GOPROXY:
//
//	GOPROXY=file://DIR,https://proxy.golang.org
//
// With -sums it prints the go.sum lines of each version, the hashes the
// proxy and the checksum database will give the tagged tree. Both read
// the working tree, or with -commit that commit (git archive, as the go
// command makes a zip from git). The zip leaves out what the proxy leaves
// out (nested modules, VCS directories) and refuses what the proxy refuses
// (such as file names that differ only in case).
//
// Two queries take no arguments:
//
//	release -resolve v0.1.0   # the commit the root's version is, or "worktree" if it is pending
//	release -pseudo HEAD      # the version the go command gives that commit
//
// It is a module of its own so that golang.org/x/mod stays out of the
// graph of evsync's modules. Run it without the workspace:
//
//	GOWORK=off go -C scripts/release run . -sums "$PWD@v0.1.0"
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	"golang.org/x/mod/zip"
)

func main() {
	var o options
	flag.StringVar(&o.proxy, "proxy", "", "write a file-system GOPROXY into `dir`")
	flag.BoolVar(&o.sums, "sums", false, "print the go.sum lines of each version")
	flag.StringVar(&o.commit, "commit", "", "pack the modules as of `commit`, not the working tree")
	resolve := flag.String("resolve", "", "print the commit the root module's `version` is, or \"worktree\" if it is pending")
	pseudo := flag.String("pseudo", "", "print the version the go command gives the root module at `commit`")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: release [-proxy dir] [-sums] [-commit commit] moduledir@version...")
		fmt.Fprintln(os.Stderr, "       release -resolve version")
		fmt.Fprintln(os.Stderr, "       release -pseudo commit")
		flag.PrintDefaults()
	}
	flag.Parse()
	query := *resolve != "" || *pseudo != ""
	pack := o.proxy != "" || o.sums
	if query == pack || (*resolve != "" && *pseudo != "") || query == (flag.NArg() > 0) || (o.commit != "" && !pack) {
		flag.Usage()
		os.Exit(2)
	}
	var err error
	switch {
	case *resolve != "":
		err = printResolved(os.Stdout, ".", *resolve)
	case *pseudo != "":
		err = printPseudo(os.Stdout, ".", *pseudo)
	default:
		err = run(os.Stdout, o, flag.Args())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

// printResolved prints the commit of the root module's version, or
// "worktree" if the version is the pending one, for the repository of dir.
func printResolved(w io.Writer, dir, version string) error {
	r, err := openRepo(dir)
	if err != nil {
		return err
	}
	c, err := r.resolve(version)
	if err != nil {
		return err
	}
	if c == "" {
		c = "worktree"
	}
	_, err = fmt.Fprintln(w, c)
	return err
}

// printPseudo prints the version the go command gives the commit rev, in
// the repository of dir.
func printPseudo(w io.Writer, dir, rev string) error {
	r, err := openRepo(dir)
	if err != nil {
		return err
	}
	v, err := r.pseudoVersion(rev)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, v)
	return err
}

// options says what run makes of its arguments.
type options struct {
	proxy  string // write a file-system GOPROXY into this directory
	sums   bool   // print the go.sum lines of each version
	commit string // pack the modules as of this commit, not the working tree
}

// A release is one module directory at the version it is to be tagged.
type release struct {
	dir    string
	gomod  []byte     // the contents of dir/go.mod
	git    *gitModule // the module as of a commit, or nil for the working tree
	module module.Version
}

// run packs each moduledir@version argument into the proxy directory (if
// not empty) and prints its go.sum lines to w (if sums).
func run(w io.Writer, o options, args []string) error {
	proxy := o.proxy
	if proxy == "" {
		tmp, err := os.MkdirTemp("", "release-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		proxy = tmp
	}
	for _, arg := range args {
		r, err := parse(arg, o.commit)
		if err != nil {
			return err
		}
		zipFile, err := r.write(proxy)
		if err != nil {
			return err
		}
		if o.sums {
			if err := r.printSums(w, zipFile); err != nil {
				return err
			}
		}
	}
	return nil
}

// parse reads a moduledir@version argument and the module's go.mod, from
// the working tree or, if commit is not empty, as of that commit.
func parse(arg, commit string) (*release, error) {
	dir, version, ok := strings.Cut(arg, "@")
	if !ok {
		return nil, fmt.Errorf("%q: want moduledir@version", arg)
	}
	r := &release{dir: dir}
	var err error
	if commit == "" {
		r.gomod, err = os.ReadFile(filepath.Join(dir, "go.mod"))
	} else {
		r.git, err = moduleAt(dir, commit)
		if err == nil {
			r.gomod, err = r.git.goMod()
		}
	}
	if err != nil {
		return nil, err
	}
	path := modfile.ModulePath(r.gomod)
	if path == "" {
		return nil, fmt.Errorf("%s: no module line in go.mod", dir)
	}
	r.module = module.Version{Path: path, Version: version}
	if err := module.Check(r.module.Path, r.module.Version); err != nil {
		return nil, err
	}
	if module.CanonicalVersion(version) != version {
		return nil, fmt.Errorf("%s: version %s is not canonical (want %s)", dir, version, module.CanonicalVersion(version))
	}
	return r, nil
}

// moduleAt returns the module of directory dir as of commit, in the git
// repository dir is in.
func moduleAt(dir, commit string) (*gitModule, error) {
	r := &repo{dir: dir}
	prefix, err := r.git("rev-parse", "--show-prefix")
	if err != nil {
		return nil, err
	}
	if r.dir, err = r.git("rev-parse", "--show-toplevel"); err != nil {
		return nil, err
	}
	c, err := r.commit(commit)
	if err != nil {
		return nil, err
	}
	return &gitModule{r: r, commit: c, subdir: strings.TrimSuffix(prefix, "/")}, nil
}

// write adds the release to the proxy directory, as the proxy protocol
// lays it out (go help goproxy), and returns the zip's file name.
func (r *release) write(proxy string) (string, error) {
	escPath, err := module.EscapePath(r.module.Path)
	if err != nil {
		return "", err
	}
	escVersion, err := module.EscapeVersion(r.module.Version)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(proxy, escPath, "@v")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", err
	}
	base := filepath.Join(dir, escVersion)
	zipFile := base + ".zip"
	if err := r.writeZip(zipFile); err != nil {
		return "", err
	}
	if err := os.WriteFile(base+".mod", r.gomod, 0o666); err != nil {
		return "", err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{r.module.Version, time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(base+".info", info, 0o666); err != nil {
		return "", err
	}
	if module.IsPseudoVersion(r.module.Version) {
		// An untagged module: the list is empty, and @latest names the
		// version, as the proxy serves the newest commit of one. The go
		// command asks for it (go install reads the latest go.mod for a
		// deprecation); without it, it would ask the next proxy.
		if err := os.WriteFile(filepath.Join(proxy, escPath, "@latest"), info, 0o666); err != nil {
			return "", err
		}
	}
	return zipFile, addToList(filepath.Join(dir, "list"), r.module.Version)
}

// writeZip writes the release's module zip into file.
func (r *release) writeZip(file string) (err error) {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	if r.git != nil {
		return r.git.writeZip(f, r.module)
	}
	return zip.CreateFromDir(f, r.module, r.dir)
}

// addToList adds version to the proxy's list file of one module, once. As
// the proxy's, the list has no pseudo-versions, and may be empty.
func addToList(file, version string) error {
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	versions := strings.Fields(string(data))
	if !slices.Contains(versions, version) && !module.IsPseudoVersion(version) {
		versions = append(versions, version)
	}
	text := strings.Join(versions, "\n")
	if text != "" {
		text += "\n"
	}
	return os.WriteFile(file, []byte(text), 0o666)
}

// printSums prints the two go.sum lines of the release: the hash of its
// zip, then that of its go.mod.
func (r *release) printSums(w io.Writer, zipFile string) error {
	h, err := dirhash.HashZip(zipFile, dirhash.Hash1)
	if err != nil {
		return err
	}
	hmod, err := dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(r.gomod)), nil
	})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s %s %s\n%s %s/go.mod %s\n",
		r.module.Path, r.module.Version, h, r.module.Path, r.module.Version, hmod)
	return err
}
