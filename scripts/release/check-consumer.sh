#!/usr/bin/env bash
# check-consumer.sh: builds a module that depends on evsync the way a
# dependent will once the release is tagged, before anything is tagged.
#
# It packs the working tree's root and kube modules at the release version
# (the one kube/go.mod requires) into a file GOPROXY, then, outside the
# workspace (GOWORK=off) and with an empty module cache of its own, a
# consumer module gets github.com/evsync/evsync/kube@VERSION, builds and
# runs a small controller (scripts/release/testdata/consumer) and runs
# kube's tests on the module graph a dependent gets. The file proxy comes
# first; third-party modules come from this machine's module cache, then
# from the Go module proxy, and are checked against the checksum database.
# Only github.com/evsync/* skips that check: it is not published yet.
#
# The module cache of its own keeps the unpublished versions out of
# $(go env GOMODCACHE). -trimpath lets its builds reuse the build cache
# although that module cache's directory is new every run.
#
# Environment: RELEASE_KEEP=1 keeps the temporary directory.
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

echo "check-consumer: packing github.com/evsync/evsync@$version and github.com/evsync/evsync/kube@$version from the working tree"
GOWORK=off go -C "$root/scripts/release" run . -proxy "$tmp/proxy" -sums "$root@$version" "$root/kube@$version" >"$tmp/sums"

cp -R "$root/scripts/release/testdata/consumer" "$tmp/consumer"
cd "$tmp/consumer"
export GOWORK=off
export GOFLAGS="-mod=mod -modcacherw -trimpath"
export GOPROXY="file://$tmp/proxy,file://$(go env GOMODCACHE)/cache/download,https://proxy.golang.org"
export GOMODCACHE="$tmp/mod"
export GONOSUMDB=github.com/evsync GONOPROXY= GOPRIVATE=

go get "github.com/evsync/evsync/kube@$version"
go build -o "$tmp/consumer.bin" .
go vet .

# The versions come from the file proxy, not from a replace or the workspace.
got=$(go list -m -f '{{.Path}}@{{.Version}}{{with .Replace}} => {{.Path}}{{end}}' github.com/evsync/evsync github.com/evsync/evsync/kube | tr '\n' ' ')
want="github.com/evsync/evsync@$version github.com/evsync/evsync/kube@$version "
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
echo "check-consumer: ok, github.com/evsync/evsync/kube@$version builds, runs and passes its tests as a dependency"
