#!/usr/bin/env bash
# check-consumer.sh: builds a module that depends on evsync the way a
# dependent does, on the root version kube requires, before anything new
# is tagged.
#
# kube/go.mod requires the root at a version (bench and cmd/evbench must
# require the same). scripts/release maps it to a commit (RELEASING.md,
# "Versions"): a pseudo-version names its commit, a release has a row in
# the table (or a tag), and the pending release is the working tree. The
# root is packed as that commit has it (git archive), not as the tree has
# it, so kube fails here if it calls API the required version lacks. kube
# is packed from the working tree: as the pending version while a release
# is prepared, else as the version the go command gives HEAD. So is
# cmd/evbench, which is then installed with go install, as a user does.
#
# Both go into a file GOPROXY. Then, outside the workspace (GOWORK=off) and
# with an empty module cache of its own, a consumer module gets
# github.com/evsync/evsync/kube at that version, builds and runs a small
# controller (scripts/release/testdata/consumer) and runs kube's tests on
# the module graph a dependent gets. The file proxy comes first;
# third-party modules come from this machine's module cache, then from the
# Go module proxy, and are checked against the checksum database. Only
# github.com/evsync/* skips that check (GONOSUMDB): these zips are not the
# published ones.
#
# The module cache of its own keeps the unpacked versions out of
# $(go env GOMODCACHE). -trimpath lets its builds reuse the build cache
# although that module cache's directory is new every run. Each package is
# compiled once: the consumer's build and kube's test share the cache. The
# consumer is not vetted: go vet analyses every dependency for facts, which
# took 2 of 15 minutes on a cold cache, and kube is vetted in the
# workspace (.ci/run) and by go test here.
#
# It needs the required commit in the clone: a shallow clone fails, and
# says so. Environment: RELEASE_KEEP=1 keeps the temporary directory.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/evsync-consumer.XXXXXX")
if [ -z "${RELEASE_KEEP:-}" ]; then
  trap 'rm -rf "$tmp"' EXIT
else
  echo "check-consumer: keeping $tmp"
fi

# required DIR prints the version of the root module that DIR/go.mod requires.
required() {
  awk '{ for (i = 1; i < NF; i++) if ($i == "github.com/evsync/evsync") { print $(i + 1); exit } }' "$root/$1/go.mod"
}

version=$(required kube)
for m in bench cmd/evbench; do
  if [ "$(required "$m")" != "$version" ]; then
    echo "check-consumer: $m/go.mod requires github.com/evsync/evsync $(required "$m"), kube/go.mod $version: move them together (RELEASING.md)"
    exit 1
  fi
done
if grep -q '=>' "$root/kube/go.mod"; then
  echo "check-consumer: kube/go.mod has a replace directive, which a dependent ignores"
  exit 1
fi

if ! grep -qxF "replace github.com/evsync/evsync $version => ./" "$root/go.work"; then
  echo "check-consumer: go.work lacks the line: replace github.com/evsync/evsync $version => ./"
  exit 1
fi

GOWORK=off go -C "$root/scripts/release" build -o "$tmp/release" .
release() { (cd "$root" && "$tmp/release" "$@"); }

# The root at the required version: its commit, or the working tree if it
# is the pending release. kube: the same version while a release is
# prepared, else the version of HEAD (a pseudo-version after a release).
commit=$(release -resolve "$version")
if [ "$commit" = worktree ]; then
  echo "check-consumer: github.com/evsync/evsync@$version is pending (RELEASING.md): packing it from the working tree"
  from=()
  kube_version=$version
else
  echo "check-consumer: github.com/evsync/evsync@$version is commit $commit: packing it from that commit (git archive)"
  from=(-commit "$commit")
  kube_version=$(release -pseudo HEAD)
fi
echo "check-consumer: packing github.com/evsync/evsync/kube@$kube_version from the working tree"
release -proxy "$tmp/proxy" -sums "${from[@]}" "$root@$version" >"$tmp/sums"
release -proxy "$tmp/proxy" -sums "$root/kube@$kube_version" >>"$tmp/sums"
release -proxy "$tmp/proxy" "$root/cmd/evbench@$kube_version"

cp -R "$root/scripts/release/testdata/consumer" "$tmp/consumer"
cd "$tmp/consumer"
export GOWORK=off
export GOFLAGS="-mod=mod -modcacherw -trimpath"
export GOPROXY="file://$tmp/proxy,file://$(go env GOMODCACHE)/cache/download,https://proxy.golang.org"
export GOMODCACHE="$tmp/mod"
export GONOSUMDB=github.com/evsync GONOPROXY= GOPRIVATE=

go get "github.com/evsync/evsync/kube@$kube_version"
# A dependent asks for a package of the root by the root's version.
go get "github.com/evsync/evsync/poll@$version"
go build -o "$tmp/consumer.bin" .

# The versions come from the file proxy, not from a replace or the workspace.
got=$(go list -m -f '{{.Path}}@{{.Version}}{{with .Replace}} => {{.Path}}{{end}}' github.com/evsync/evsync github.com/evsync/evsync/kube | tr '\n' ' ')
want="github.com/evsync/evsync@$version github.com/evsync/evsync/kube@$kube_version "
if [ "$got" != "$want" ]; then
  echo "check-consumer: the consumer's build list has $got, want $want"
  exit 1
fi
# The hashes the go command wrote are those the release tool prints (and
# RELEASING.md compares with the tagged release's).
if [ "$(grep -cxFf "$tmp/sums" go.sum)" -ne 4 ]; then
  echo "check-consumer: the consumer's go.sum lacks one of the release tool's lines:"
  cat "$tmp/sums"
  exit 1
fi

"$tmp/consumer.bin"
go test -count=1 github.com/evsync/evsync/kube

# go install of the demo, as its README line does it: outside any module's
# graph, on the root version cmd/evbench requires.
echo "check-consumer: go install github.com/evsync/evsync/cmd/evbench@$kube_version"
GOBIN="$tmp/bin" go install "github.com/evsync/evsync/cmd/evbench@$kube_version"
"$tmp/bin/evbench" -match nosuchthing >/dev/null 2>&1 && rc=0 || rc=$?
if [ "$rc" -ne 2 ]; then
  echo "check-consumer: the installed evbench -match nosuchthing exited $rc, want 2"
  exit 1
fi
echo "check-consumer: ok, github.com/evsync/evsync/kube@$kube_version builds, runs and passes its tests as a dependency, and cmd/evbench@$kube_version installs, on github.com/evsync/evsync@$version"
