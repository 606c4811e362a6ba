# bench/lib.sh - helpers shared by the benchmark scripts in bench/: the
# tools they need, and one timed run of a command under /usr/bin/time -v.
# Sourced, not run; POSIX sh.

BENCH_TIME=/usr/bin/time

# bench_need_tools: exit 1 with a message when a tool every benchmark needs
# (GNU time, xfs_repair) is missing.
bench_need_tools() {
	[ -x "$BENCH_TIME" ] ||
		{ echo "bench: /usr/bin/time is needed (package time)" >&2; exit 1; }
	command -v xfs_repair >/dev/null ||
		{ echo "bench: xfs_repair is needed" >&2; exit 1; }
}

# bench_run1 LOG CMD...: runs CMD once (stdout and stderr discarded) under
# `time -v`, whose full report is kept in LOG; prints "wall_s rss_kib status".
# The wall clock time of -v (h:mm:ss or m:ss.cc) is turned into seconds.
bench_run1() {
	_log=$1
	shift
	"$BENCH_TIME" -v -o "$_log" "$@" >/dev/null 2>&1 || :
	awk '
	/Elapsed \(wall clock\) time/ {
		n = split($NF, p, ":"); w = 0
		for (i = 1; i <= n; i++) w = w * 60 + p[i]
	}
	/Maximum resident set size/ { m = $NF }
	/Exit status/ { s = $NF }
	END { printf "%.2f %d %d\n", w, m, s }' "$_log"
}

# bench_best: reads bench_run1 lines on stdin; prints "best_wall max_rss".
bench_best() {
	awk 'NR == 1 || $1 < b { b = $1 } $2 > m { m = $2 }
	END { printf "%.2f %d\n", b, m }'
}

# bench_program TOP: when XFSRECON is unset, configure and make an optimised
# build without sanitizers in $XFSRECON_BENCH_BUILD (default TOP/_build-bench)
# and set XFSRECON to it.
bench_program() {
	[ -z "${XFSRECON:-}" ] || return 0
	_bdir=${XFSRECON_BENCH_BUILD:-$1/_build-bench}
	[ -x "$1/configure" ] || (cd "$1" && autoreconf -fi) >/dev/null
	mkdir -p "$_bdir"
	[ -f "$_bdir/Makefile" ] || (cd "$_bdir" && "$1/configure" CFLAGS="-O2 -g") >/dev/null
	make -C "$_bdir" -s -j2 xfsrecon >/dev/null
	XFSRECON="$_bdir/xfsrecon"
}

# bench_measure LOGDIR NAME CMD...: one untimed warm-up, then BENCH_RUNS
# timed runs (reports kept as LOGDIR/NAME.*); sets r_runs (the wall times),
# r_med (median wall), r_rss (largest RSS), r_st (the exit statuses seen).
bench_measure() {
	_logs=$1 _name=$2
	shift 2
	bench_run1 "$_logs/$_name.warm" "$@" >/dev/null
	_n=1 _lines=""
	while [ $_n -le "${BENCH_RUNS:-3}" ]; do
		_lines="$_lines$(bench_run1 "$_logs/$_name.$_n" "$@")
"
		_n=$((_n + 1))
	done
	r_runs=$(printf '%s' "$_lines" | awk '{ printf "%s%s", (NR > 1 ? " " : ""), $1 }')
	r_med=$(printf '%s' "$_lines" | sort -n | awk '{ w[NR] = $1 }
		END { printf "%.2f", (NR % 2 ? w[(NR + 1) / 2] : (w[NR / 2] + w[NR / 2 + 1]) / 2) }')
	r_rss=$(printf '%s' "$_lines" | awk '$2 > m { m = $2 } END { print m + 0 }')
	r_st=$(printf '%s' "$_lines" | awk '{ s[$3] = 1 } END { for (k in s) o = o (o ? "," : "") k; print o }')
}
