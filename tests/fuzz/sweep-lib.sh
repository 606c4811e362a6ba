# tests/fuzz/sweep-lib.sh - what the corruption sweeps share (sourced, not run).
#
# Used by blocktrash-sweep.sh and field-sweep.sh: the program under test
# (built with sanitizers unless $XFSRECON names one), the clean corpus images,
# the sanitizer settings, and how an exit status and its standard error are
# judged (crash, hang or ok).  Functions keep their state in sw_-prefixed
# variables; callers set sweep_srcdir first.

# Sanitizers end the process with a signal so that the exit status says so.
ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:allocator_may_return_null=1
UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
export ASAN_OPTIONS UBSAN_OPTIONS

# sweep_need TOOL...: exit 2 naming the first tool that is missing.
sweep_need() {
	for sw_t in "$@"; do
		command -v "$sw_t" > /dev/null 2>&1 ||
			{ echo "$(basename "$0"): $sw_t missing" >&2; exit 2; }
	done
}

# sweep_xfsrecon: set XFSRECON to the program to test.  Unless the caller
# named one, an ASan+UBSan build is configured and made in $SWEEP_BUILDDIR
# (default _build-sweep in the source tree).
sweep_xfsrecon() {
	[ -z "${XFSRECON:-}" ] || return 0
	sw_b=${SWEEP_BUILDDIR:-$sweep_srcdir/_build-sweep}
	mkdir -p "$sw_b"
	if [ ! -f "$sw_b/Makefile" ]; then
		(cd "$sweep_srcdir" && { [ -f configure ] || autoreconf -fi; }) || exit 2
		(cd "$sw_b" && "$sweep_srcdir/configure" -q --enable-asan --enable-ubsan) || exit 2
	fi
	(cd "$sw_b" && make -s -j2 xfsrecon) || exit 2
	XFSRECON=$sw_b/xfsrecon
}

# sweep_base_images DIR [NAME...]: decompress the committed corpus images
# (all of them, or those NAMEs) into DIR as NAME.img, once.  Images of
# corpus/current (formats xfsprogs 6.1 refuses: run with XFS_DB and
# XFS_REPAIR of xfsprogs 6.13) are taken only when named.
sweep_base_images() {
	sw_dir=$1
	shift
	mkdir -p "$sw_dir"
	sw_more=""
	[ $# -gt 0 ] && sw_more="$sweep_srcdir/corpus/current/*.img.zst"
	# shellcheck disable=SC2086
	for sw_z in "$sweep_srcdir"/corpus/images/*.img.zst $sw_more; do
		[ -f "$sw_z" ] || continue
		sw_n=$(basename "$sw_z" .img.zst)
		if [ $# -gt 0 ]; then
			case " $* " in *" $sw_n "*) ;; *) continue ;; esac
		fi
		[ -f "$sw_dir/$sw_n.img" ] || zstd -q -d -f -o "$sw_dir/$sw_n.img" "$sw_z" || exit 2
	done
}

# sweep_fault RC ERRFILE: hang (timeout's 124), crash (a signal, or any
# sanitizer report in ERRFILE) or ok.
sweep_fault() {
	if [ "$1" -eq 124 ]; then
		echo hang
	elif [ "$1" -ge 128 ] || grep -qE 'Sanitizer|runtime error:' "$2"; then
		echo crash
	else
		echo ok
	fi
}
