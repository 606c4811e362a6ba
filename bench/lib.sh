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
