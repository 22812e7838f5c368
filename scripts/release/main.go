// Command release packs modules of this repository as the Go module proxy
// will serve them once they are tagged, so that a release can be tried
// before anything is tagged.
//
// Each argument is a module directory and the version it is to have:
//
//	release -proxy DIR ../..@v0.1.0 ../../kube@v0.1.0
//	release -sums ../..@v0.1.0
//
// With -proxy it writes a file-system GOPROXY into DIR (list, .info, .mod
// and .zip of each version), which a consumer puts first in its GOPROXY:
//
//	GOPROXY=file://DIR,https://proxy.golang.org
//
// With -sums it prints the go.sum lines of each version, the hashes the
// proxy and the checksum database will give the tagged tree. Both read
// the working tree, not a commit: run them on a clean checkout. The zip
// leaves out what the proxy leaves out (nested modules, VCS directories)
// and refuses what the proxy refuses (such as file names that differ
// only in case).
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
	proxy := flag.String("proxy", "", "write a file-system GOPROXY into `dir`")
	sums := flag.Bool("sums", false, "print the go.sum lines of each version")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: release [-proxy dir] [-sums] moduledir@version...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if (*proxy == "" && !*sums) || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout, *proxy, *sums, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

// A release is one module directory at the version it is to be tagged.
type release struct {
	dir    string
	gomod  []byte // the contents of dir/go.mod
	module module.Version
}

// run packs each moduledir@version argument into the proxy directory (if
// not empty) and prints its go.sum lines to w (if sums).
func run(w io.Writer, proxy string, sums bool, args []string) error {
	if proxy == "" {
		tmp, err := os.MkdirTemp("", "release-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		proxy = tmp
	}
	for _, arg := range args {
		r, err := parse(arg)
		if err != nil {
			return err
		}
		zipFile, err := r.write(proxy)
		if err != nil {
			return err
		}
		if sums {
			if err := r.printSums(w, zipFile); err != nil {
				return err
			}
		}
	}
	return nil
}

// parse reads a moduledir@version argument and the module's go.mod.
func parse(arg string) (*release, error) {
	dir, version, ok := strings.Cut(arg, "@")
	if !ok {
		return nil, fmt.Errorf("%q: want moduledir@version", arg)
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return nil, err
	}
	path := modfile.ModulePath(gomod)
	if path == "" {
		return nil, fmt.Errorf("%s: no module line in go.mod", dir)
	}
	m := module.Version{Path: path, Version: version}
	if err := module.Check(m.Path, m.Version); err != nil {
		return nil, err
	}
	if module.CanonicalVersion(version) != version {
		return nil, fmt.Errorf("%s: version %s is not canonical (want %s)", dir, version, module.CanonicalVersion(version))
	}
	return &release{dir: dir, gomod: gomod, module: m}, nil
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
	if err := writeZip(zipFile, r.module, r.dir); err != nil {
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
	return zipFile, addToList(filepath.Join(dir, "list"), r.module.Version)
}

// writeZip writes the module zip of m from dir into file.
func writeZip(file string, m module.Version, dir string) (err error) {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	return zip.CreateFromDir(f, m, dir)
}

// addToList adds version to the proxy's list file of one module, once.
func addToList(file, version string) error {
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	versions := strings.Fields(string(data))
	if !slices.Contains(versions, version) {
		versions = append(versions, version)
	}
	return os.WriteFile(file, []byte(strings.Join(versions, "\n")+"\n"), 0o666)
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
