#!/bin/sh
# run-fuzzers.sh - build the libFuzzer targets with clang and run them.
#
# usage: tests/fuzz/run-fuzzers.sh SECONDS|-runs=N [TARGET...]
#        tests/fuzz/run-fuzzers.sh minimize TARGET FILE
#        tests/fuzz/run-fuzzers.sh coverage [TARGET...]
#   TARGET is sb, agheaders, btree, dinode, log, dir, attr, image, logitem, planfile or
#   inputs (default: all).
#
# Environment:
#   FUZZ_BUILDDIR  build tree (default: _build-fuzzers in the source tree),
#                  configured on first use with
#                  CC=clang --enable-fuzzing --enable-asan --enable-ubsan
#   FUZZ_WORKDIR   where the growing corpora and crash artifacts live
#                  (default: FUZZ_BUILDDIR/fuzz-runs)
#   FUZZ_JOBS      targets run at the same time (default 1)
#   FUZZ_FLAGS     extra libFuzzer flags
#
# Each target runs in libFuzzer's fork mode with crashes, timeouts and OOMs
# ignored, so one bug does not end the run; every failing input is kept in
# FUZZ_WORKDIR/TARGET/artifacts/ for triage (see tests/fuzz/README.md).  The
# corpus starts from tests/fuzz/seeds/TARGET and corpus/known-bad/TARGET and
# keeps growing across runs.  At the end a table gives, per target:
# executions, executions per second, coverage (libFuzzer's cov/ft), corpus
# size, and the artifacts this run added.  Not part of `make check`.
#
# `coverage` replays the seeds, the known-bad inputs and the grown corpora
# through the replay_* programs of a source-coverage build (FUZZ_BUILDDIR-cov,
# clang -fprofile-instr-generate -fcoverage-mapping) and prints llvm-cov's
# per-file line and branch coverage of formats/ and analyzer/.
set -eu

srcdir=$(cd "$(dirname "$0")/../.." && pwd)
builddir=${FUZZ_BUILDDIR:-$srcdir/_build-fuzzers}
ALL="sb agheaders btree dinode log dir attr image logitem planfile inputs"

build() {
	mkdir -p "$builddir"
	if [ ! -f "$builddir/Makefile" ]; then
		(cd "$srcdir" && { [ -f configure ] || autoreconf -fi; })
		(cd "$builddir" && CC=${CC:-clang} "$srcdir/configure" -q --enable-fuzzing \
			--enable-asan --enable-ubsan)
	fi
	(cd "$builddir" && make -s -j"${FUZZ_JOBS:-1}" fuzz-targets >/dev/null)
}

# Largest input each target takes (see the header of each fuzz_*.c).
max_len() {
	case $1 in
	sb) echo 8192 ;;
	agheaders) echo 13000 ;;
	btree) echo 66000 ;;
	dinode) echo 2400 ;;
	log) echo 16384 ;;
	dir) echo 66000 ;;
	attr) echo 20000 ;;
	image) echo 524288 ;;
	logitem) echo 65536 ;;
	planfile) echo 262144 ;;
	inputs) echo 65536 ;;
	esac
}

if [ "${1:-}" = minimize ]; then
	[ $# = 3 ] || { echo "usage: run-fuzzers.sh minimize TARGET FILE" >&2; exit 2; }
	build
	out="$2-min-$(basename "$3")"
	"$builddir/tests/fuzz/fuzz_$2" -minimize_crash=1 -runs=20000 -max_total_time=120 \
		-exact_artifact_path="$out" "$3" || true
	echo "minimized input: $out ($(wc -c < "$out") bytes)"
	exit 0
fi

if [ "${1:-}" = coverage ]; then
	shift
	targets=${*:-$ALL}
	cov="$builddir-cov"
	work=${FUZZ_WORKDIR:-$builddir/fuzz-runs}
	mkdir -p "$cov"
	if [ ! -f "$cov/Makefile" ]; then
		(cd "$srcdir" && { [ -f configure ] || autoreconf -fi; })
		(cd "$cov" && CC=${CC:-clang} CFLAGS="-O1 -g -fprofile-instr-generate -fcoverage-mapping" \
			"$srcdir/configure" -q)
	fi
	bins=""
	for t in $targets; do
		(cd "$cov" && make -s -j2 "tests/fuzz/replay_$t" >/dev/null) || exit 1
		bins="$bins $cov/tests/fuzz/replay_$t"
	done
	rm -rf "$cov/profiles"
	mkdir -p "$cov/profiles"
	for t in $targets; do
		set -- "$srcdir/tests/fuzz/seeds/$t"
		[ -d "$srcdir/corpus/known-bad/$t" ] && set -- "$@" "$srcdir/corpus/known-bad/$t"
		[ -d "$work/$t/corpus" ] && set -- "$@" "$work/$t/corpus"
		LLVM_PROFILE_FILE="$cov/profiles/$t-%p.profraw" "$cov/tests/fuzz/replay_$t" "$@" ||
			echo "run-fuzzers.sh: replay_$t failed (a crash in the corpus?)" >&2
	done
	${LLVM_PROFDATA:-llvm-profdata} merge -sparse -o "$cov/merged.profdata" "$cov"/profiles/*.profraw
	first=${bins# }
	first=${first%% *}
	objs=""
	for b in $bins; do
		[ "$b" = "$first" ] || objs="$objs -object $b"
	done
	# shellcheck disable=SC2086
	${LLVM_COV:-llvm-cov} report "$first" $objs -instr-profile="$cov/merged.profdata" \
		-ignore-filename-regex='(tests/|/usr/)' | sed "s|$srcdir/||"
	exit 0
fi

limit=${1:?usage: run-fuzzers.sh SECONDS|-runs=N [TARGET...]}
shift
targets=${*:-$ALL}
case $limit in
-runs=*) budget=$limit ;;
*[!0-9]*|'') echo "run-fuzzers.sh: SECONDS must be a number or -runs=N" >&2; exit 2 ;;
*) budget=-max_total_time=$limit ;;
esac
work=${FUZZ_WORKDIR:-$builddir/fuzz-runs}
build

run_one() {
	t=$1
	d="$work/$t"
	mkdir -p "$d/corpus" "$d/artifacts"
	before=$(ls "$d/artifacts" | wc -l)
	set -- "$d/corpus" "$srcdir/tests/fuzz/seeds/$t"
	[ -d "$srcdir/corpus/known-bad/$t" ] && set -- "$@" "$srcdir/corpus/known-bad/$t"
	# shellcheck disable=SC2086
	"$builddir/tests/fuzz/fuzz_$t" "$budget" -fork=1 -ignore_crashes=1 \
		-ignore_timeouts=1 -ignore_ooms=1 -timeout=25 -rss_limit_mb=4096 \
		-max_len="$(max_len "$t")" -artifact_prefix="$d/artifacts/" ${FUZZ_FLAGS:-} \
		"$@" > "$d/log" 2>&1 || true
	after=$(ls "$d/artifacts" | wc -l)
	echo $((after - before)) > "$d/new-artifacts"
}

running=0
for t in $targets; do
	[ -n "$(max_len "$t")" ] || { echo "run-fuzzers.sh: no target '$t'" >&2; exit 2; }
	mkdir -p "$work/$t/corpus" "$work/$t/artifacts"
	run_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "${FUZZ_JOBS:-1}" ]; then
		wait
		running=0
	fi
done
wait

printf '%-10s %12s %8s %7s %8s %7s %-18s %s\n' target execs exec/s cov ft corpus \
	oom/timeout/crash "new artifacts"
for t in $targets; do
	d="$work/$t"
	# Fork mode prints "#EXECS: cov: C ft: F corp: N exec/s E
	# oom/timeout/crash: O/T/C time: Ss job: J dft_time: 0".
	line=$(grep -E '^#[0-9]+: cov:' "$d/log" | tail -1)
	execs=$(printf '%s\n' "$line" | sed -n 's/^#\([0-9]*\):.*/\1/p')
	cov=$(printf '%s\n' "$line" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(printf '%s\n' "$line" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	secs=$(printf '%s\n' "$line" | sed -n 's/.* time: \([0-9]*\)s.*/\1/p')
	otc=$(printf '%s\n' "$line" | sed -n 's/.* oom\/timeout\/crash: \([0-9/]*\).*/\1/p')
	eps=?
	[ -n "$execs" ] && [ -n "$secs" ] && [ "$secs" -gt 0 ] && eps=$((execs / secs))
	corp=$(ls "$d/corpus" | wc -l)
	new=$(cat "$d/new-artifacts")
	printf '%-10s %12s %8s %7s %8s %7s %-18s %s' "$t" "${execs:-?}" "$eps" "${cov:-?}" \
		"${ft:-?}" "$corp" "${otc:-?}" "$new"
	if [ "$new" -gt 0 ]; then
		printf ' (%s)' "$(ls -t "$d/artifacts" | head -"$new" |
			sed 's/-.*//' | sort | uniq -c | awk '{printf "%s%s %s", sep, $1, $2; sep=", "}')"
	fi
	printf '\n'
done
echo "logs and artifacts: $work/TARGET/{log,artifacts/}"
