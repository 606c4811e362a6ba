#!/bin/sh
# tests/golden/readme_commands.sh - the README's two commands, in order, on
# one fresh clone.
#
# The README promises that its first command (install, build, check a
# bundled image) and its second (tests/run-suite) work in that order on the
# same tree.  The first configures in place; the suite must still build (a
# second, out-of-tree configuration of a configured tree is refused by
# automake, so run-suite builds from a clean copy then).  This test clones the
# committed tree, runs the first command as the README prints it (less the
# package installation, which the running suite already needed), expects the
# clean check's exit 0, then runs the second with one small test selected
# (SUITE_TESTS) and expects its "1 passed, 0 failed" line.
# The clone is made from the work tree holding the source: when the suite
# runs from its clean copy of a configured tree (_build-check/src, no
# repository of its own), that is the user's tree around it.
# Skipped (77) where the source is no git checkout.
. "$top_srcdir/tests/lib.sh"

need_tool git
need_tool autoreconf
repo=$(git -C "$top_srcdir" rev-parse --show-toplevel 2> /dev/null) || skip "the source is no git checkout"

readme=$top_srcdir/README.md
# The two commands: the first two ```sh blocks, one line each.
first=$(awk '/^```sh$/ { n++; getline; if (n == 1) print; exit }' "$readme")
second=$(awk '/^```sh$/ { n++; getline; if (n == 2) { print; exit } }' "$readme")
[ -n "$first" ] && [ -n "$second" ] || fail "the README does not start with two sh blocks"
case $first in
"apt-get update && apt-get install -y "*" && "*) ;;
*) fail "the first command does not start by installing packages: $first" ;;
esac
[ "$second" = "tests/run-suite" ] || fail "the second command is not tests/run-suite: $second"
# Everything after the package installation, as written.
build_cmd=${first#*doc/debian-packages.txt) && }
[ "$build_cmd" != "$first" ] || fail "cannot split the first command: $first"

# Nothing of the make running this test may reach the inner builds (a
# TESTS= given to it would select the inner suite's tests too).
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES TESTS
clone=$TMPD/clone
git clone -q "$repo" "$clone" || fail "cannot clone the source tree"
(cd "$clone" && sh -c "$build_cmd") > "$TMPD/first.out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "the first command exits $rc: $(tail -n 20 "$TMPD/first.out")"
grep -q 'errors' "$TMPD/first.out" || grep -q 'clean' "$TMPD/first.out" ||
	fail "the first command printed no report: $(tail -n 5 "$TMPD/first.out")"
[ -f "$clone/config.status" ] || fail "the first command did not configure in place"

(cd "$clone" && SUITE_TESTS=tests/golden/errors.sh sh -c "$second") > "$TMPD/second.out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "the second command exits $rc after the first: $(tail -n 20 "$TMPD/second.out")"
grep -qx '1 passed, 0 failed, 0 skipped' "$TMPD/second.out" ||
	fail "the second command's count line is wrong: $(tail -n 5 "$TMPD/second.out")"
echo "both README commands passed in order on one clone"
