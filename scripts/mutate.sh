#!/usr/bin/env bash
# mutate.sh [ID...]: the mutation score of evsync's test suite.
#
# Each mutant in scripts/mutants.txt is a hand-written, realistic bug: an
# exact snippet of one file and its replacement. The script copies the
# module to a temporary directory (the working tree is never touched),
# checks that every mutant's snippet occurs exactly once in its file
# (a stale mutant is an error: the list must follow the code), runs the
# tests of every package named by a mutant once unmutated (they must
# pass), and then, one mutant at a time, applies it to the copy, runs the
# mutant's packages and restores the file. It prints one row per mutant:
#
#   ID  FILE  KILLED|SURVIVED|EQUIVALENT|SKIPPED  first failing test  description
#
# and exits 1 if any mutant survived (or broke the build), 2 if the list
# is invalid or the unmutated tests fail. With IDs, it runs only those
# mutants. Mutants marked "equivalent:" are listed but not run; a
# mutant's section (a directory, such as workqueue) is skipped when that
# directory is absent.
#
# A mutant's header may ask for "race: 1" (its packages' tests run with
# -race) and for "tags: TAG[,TAG...]" (they are built with -tags TAGS):
# the window tests of internal/counter, which stop a goroutine at a hook
# between a look at the word and the step that acts on it, exist only
# with "tags: evsynchooks" (see internal/counter/points.go). The baseline
# runs once per combination of race and tags that the selected mutants
# use.
#
# Environment: MUTATE_KEEP=1 keeps the temporary copy and the logs;
# MUTATE_TIMEOUT overrides every mutant's go test -timeout.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
list=$root/scripts/mutants.txt
work=$(mktemp -d "${TMPDIR:-/tmp}/evsync-mutate.XXXXXX")
if [ -z "${MUTATE_KEEP:-}" ]; then
  trap 'rm -rf "$work"' EXIT
fi
tree=$work/tree
logs=$work/logs
mkdir -p "$tree" "$logs"

die() {
  printf 'mutate.sh: %s\n' "$*" >&2
  exit 2
}

# ---- parse the list -------------------------------------------------------
# Parallel arrays, one entry per mutant.
ids=() files=() descs=() pkgs=() races=() tagss=() equivs=() sections=() timeouts=() olds=() news=()

parse() {
  local line state=top id="" file="" desc="" pkg="" race="" tags="" equiv="" section="" timeout="" old="" new=""
  local n=0
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    case $state in
    top)
      case $line in
      '' | '#'*) ;;
      '@@ mutant '*)
        id=${line#@@ mutant }
        file="" desc="" pkg="" race="" tags="" equiv="" section="" timeout="" old="" new=""
        state=head
        ;;
      *) die "$list:$n: expected '@@ mutant ID', got: $line" ;;
      esac
      ;;
    head)
      case $line in
      'file: '*) file=${line#file: } ;;
      'desc: '*) desc=${line#desc: } ;;
      'pkgs: '*) pkg=${line#pkgs: } ;;
      'race: '*) race=${line#race: } ;;
      'tags: '*) tags=${line#tags: } ;;
      'timeout: '*) timeout=${line#timeout: } ;;
      'section: '*) section=${line#section: } ;;
      'equivalent: '*) equiv=${line#equivalent: } ;;
      '<<< old') state=old ;;
      *) die "$list:$n: mutant $id: unexpected header line: $line" ;;
      esac
      ;;
    old)
      if [ "$line" = '=== new' ]; then
        state=new
      else
        old+=$line$'\n'
      fi
      ;;
    new)
      if [ "$line" = '>>> end' ]; then
        [ -n "$file" ] && [ -n "$desc" ] && [ -n "$pkg" ] && [ -n "$old" ] ||
          die "$list:$n: mutant $id needs file:, desc:, pkgs: and an old snippet"
        ids+=("$id") files+=("$file") descs+=("$desc") pkgs+=("$pkg") races+=("$race") tagss+=("$tags")
        equivs+=("$equiv") sections+=("$section") timeouts+=("${timeout:-5m}")
        olds+=("$old") news+=("$new")
        state=top
      else
        new+=$line$'\n'
      fi
      ;;
    esac
  done <"$list"
  [ "$state" = top ] || die "$list: mutant $id is not closed with '>>> end'"
}

# read_file prints nothing; it sets REPLY to the file's exact contents
# (trailing newlines included).
read_file() {
  REPLY=$(
    cat -- "$1"
    printf x
  )
  REPLY=${REPLY%x}
}

# occurrences counts how often $2 occurs in $1, literally.
occurrences() {
  local rest=${1//"$2"/}
  echo $(((${#1} - ${#rest}) / ${#2}))
}

parse
[ "${#ids[@]}" -gt 0 ] || die "no mutants in $list"
declare -A seen=()
for id in "${ids[@]}"; do
  [ -z "${seen[$id]:-}" ] || die "mutant $id is listed twice"
  seen[$id]=1
done

# ---- copy the module --------------------------------------------------------
tar -C "$root" --exclude=./.git -cf - . | tar -C "$tree" -xf -
# present DIR reports whether the section DIR (a directory) is in the copy.
present() { [ -z "$1" ] || [ -d "$tree/$1" ]; }

# selected reports whether mutant i is to be run: not equivalent, its
# section present, and chosen on the command line (or no choice made).
selected() {
  local i=$1 want
  [ -z "${equivs[$i]}" ] || return 1
  present "${sections[$i]}" || return 1
  [ "$#" -gt 1 ] || return 0
  shift
  for want in "$@"; do
    [ "$want" = "${ids[$i]}" ] && return 0
  done
  return 1
}

for id in "$@"; do
  [ -n "${seen[$id]:-}" ] || die "unknown mutant $id"
done

# Validate every mutant that will run (and the equivalent ones, so their
# snippets stay current too): its snippet must occur exactly once.
bad=0
for i in "${!ids[@]}"; do
  present "${sections[$i]}" || continue
  f=$tree/${files[$i]}
  if [ ! -f "$f" ]; then
    printf 'mutant %s: no file %s\n' "${ids[$i]}" "${files[$i]}" >&2
    bad=1
    continue
  fi
  read_file "$f"
  if c=$(occurrences "$REPLY" "${olds[$i]}") && [ "$c" != 1 ]; then
    printf 'mutant %s: the old snippet occurs %s times in %s (want exactly 1):\n%s' \
      "${ids[$i]}" "$c" "${files[$i]}" "${olds[$i]}" >&2
    bad=1
  fi
done
[ "$bad" = 0 ] || die "the mutant list is out of date (see above)"

# ---- run ---------------------------------------------------------------------
# run_tests LOG TIMEOUT RACE TAGS PKGS...: go test in the copy, one
# package at a time in the order given, output to LOG; it stops at the
# first package that fails (a mutant is killed once, and a package whose
# calls hang would otherwise hold up the run until its -timeout).
# TestBug* tests document known, unfixed bugs (internal/testsupport/faults): they
# fail on purpose and would "kill" every mutant, so they are skipped.
run_tests() {
  local log=$1 timeout=$2 race=$3 tags=$4 p
  shift 4
  local flags=(-count=1 -vet=off -timeout="$timeout" -skip='^TestBug')
  [ -z "$race" ] || flags+=(-race)
  [ -z "$tags" ] || flags+=(-tags="$tags")
  : >"$log"
  for p in "$@"; do
    (cd "$tree" && go test "${flags[@]}" "$p") >>"$log" 2>&1 || return 1
  done
}

# run_baseline LOG RACE TAGS PKGS...: all the packages at once (go test
# runs them in parallel), which must pass.
run_baseline() {
  local log=$1 race=$2 tags=$3
  shift 3
  local flags=(-count=1 -vet=off -timeout=10m -skip='^TestBug')
  [ -z "$race" ] || flags+=(-race)
  [ -z "$tags" ] || flags+=(-tags="$tags")
  (cd "$tree" && go test "${flags[@]}" "$@") >"$log" 2>&1
}

# first_failure prints the first failing test of LOG, or what else failed.
first_failure() {
  local log=$1 name
  name=$(grep -m1 -oE -- '^ *--- FAIL: [^ ]+' "$log" | sed -E 's/^ *--- FAIL: //' || true)
  if [ -z "$name" ]; then
    if grep -q 'panic: test timed out' "$log"; then
      name="(timeout) $(grep -m1 -oE -- '^\s+(Test|Fuzz)[A-Za-z0-9_/]+' "$log" | tr -d '[:space:]' || true)"
    elif grep -qE '\[build failed\]|\[setup failed\]' "$log"; then
      name="(build failed)"
    elif grep -q '^panic: ' "$log"; then
      name="(panic) $(grep -m1 '^panic: ' "$log" | cut -c8-60)"
    else
      name="(FAIL) $(grep -m1 -E '^FAIL\s' "$log" | awk '{print $2}' || true)"
    fi
  fi
  printf '%s' "$name"
}

start=$(date +%s)

# Baseline: for each combination of race and tags the selected mutants
# use, the union of their packages must pass unmutated.
declare -A base=() # "race|tags" -> " pkg pkg ..."
for i in "${!ids[@]}"; do
  selected "$i" "$@" || continue
  key="${races[$i]}|${tagss[$i]}"
  for p in ${pkgs[$i]}; do
    case "${base[$key]:-} " in
    *" $p "*) ;;
    *) base[$key]="${base[$key]:-} $p" ;;
    esac
  done
done
n=0
for key in "${!base[@]}"; do
  race=${key%%|*} tags=${key#*|} n=$((n + 1))
  how="go test${race:+ -race}${tags:+ -tags $tags}"
  printf 'baseline: %s%s\n' "$how" "${base[$key]}"
  # shellcheck disable=SC2086 # a list of packages
  if ! run_baseline "$logs/baseline-$n.log" "$race" "$tags" ${base[$key]}; then
    cat "$logs/baseline-$n.log" >&2
    die "the unmutated tests fail ($how): fix them first"
  fi
done

rows=()
survived=0 killed=0 equivalent=0 skipped=0 broken=0
for i in "${!ids[@]}"; do
  id=${ids[$i]} file=${files[$i]}
  if [ -n "${equivs[$i]}" ]; then
    rows+=("$(printf '%-34s %-28s %-10s %-44s %s' "$id" "$file" EQUIVALENT "-" "${descs[$i]} [${equivs[$i]}]")")
    equivalent=$((equivalent + 1))
    continue
  fi
  if ! selected "$i" "$@"; then
    [ "$#" -eq 0 ] || continue # not chosen on the command line: no row
    rows+=("$(printf '%-34s %-28s %-10s %-44s %s' "$id" "$file" SKIPPED "-" "${descs[$i]}")")
    skipped=$((skipped + 1))
    continue
  fi
  f=$tree/$file
  cp -- "$f" "$work/orig"
  read_file "$f"
  content=$REPLY
  printf '%s' "${content/"${olds[$i]}"/"${news[$i]}"}" >"$f"
  log=$logs/$id.log
  t0=$(date +%s)
  # shellcheck disable=SC2086 # pkgs is a list of words
  if run_tests "$log" "${MUTATE_TIMEOUT:-${timeouts[$i]}}" "${races[$i]}" "${tagss[$i]}" ${pkgs[$i]}; then
    verdict=SURVIVED
    why="-"
    survived=$((survived + 1))
  else
    verdict=KILLED
    why=$(first_failure "$log")
    killed=$((killed + 1))
    if [ "$why" = "(build failed)" ]; then
      verdict=BROKEN
      killed=$((killed - 1))
      broken=$((broken + 1))
    fi
  fi
  cp -- "$work/orig" "$f" # restore before the next mutant
  row=$(printf '%-34s %-28s %-10s %-44s %s' "$id" "$file" "$verdict" "$why" "${descs[$i]}")
  rows+=("$row")
  printf '%s  (%ss)\n' "$row" "$(($(date +%s) - t0))"
done

printf '\n%-34s %-28s %-10s %-44s %s\n' MUTANT FILE RESULT 'FIRST FAILING TEST' DESCRIPTION
printf '%s\n' "${rows[@]}"
total=$((killed + survived))
printf '\nkilled %d of %d run (%d survived, %d broke the build); %d equivalent, %d skipped; %ss\n' \
  "$killed" "$total" "$survived" "$broken" "$equivalent" "$skipped" "$(($(date +%s) - start))"
if [ -n "${MUTATE_KEEP:-}" ]; then
  printf 'copy and logs kept in %s\n' "$work"
fi
[ "$survived" = 0 ] && [ "$broken" = 0 ]
