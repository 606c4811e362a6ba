/*
 * regression_driver.c - replay fuzz inputs through one target without
 * libFuzzer, as an ordinary test.
 *
 * Linked with one target's LLVMFuzzerTestOneInput (built once per target as
 * tests/fuzz/replay_<target>).  With no arguments it replays every file in
 * tests/fuzz/seeds/<target>/ and corpus/known-bad/<target>/ under the source
 * tree ($top_srcdir, else the directory configure saw), in name order, and
 * exits 0.  A crash, a sanitizer report or a leak ends the process with a
 * failure; so does an input that runs longer than XFZ_INPUT_SECONDS (a hang:
 * real inputs take milliseconds even under the sanitizers), and an empty seed
 * directory, since a replay of nothing proves nothing.  With arguments it replays exactly those files or directories
 * (for triage: `tests/fuzz/replay_btree crash-1234`).
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/fuzz/harness.h"

#ifndef XFZ_TARGET
#error "XFZ_TARGET (the target name, e.g. \"sb\") must be defined"
#endif
#ifndef XFZ_SRCDIR
#define XFZ_SRCDIR "."
#endif

#define XFZ_INPUT_SECONDS 20

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static const char *current_input;

static void on_alarm(int sig)
{
	static const char msg[] = ": still running after " "20" " s: a hang\n";

	(void)sig;
	/* Only async-signal-safe calls here. */
	if (write(STDERR_FILENO, current_input, strlen(current_input)) < 0 ||
	    write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (!f) {
		perror(path);
		return -1;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		perror(path);
		fclose(f);
		return -1;
	}
	/* An exact-size copy, as libFuzzer gives it, so overreads are caught. */
	buf = malloc(len ? (size_t)len : 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "%s: cannot read\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	current_input = path;
	alarm(XFZ_INPUT_SECONDS);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	alarm(0);
	free(buf);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replay every regular file in dir; returns how many, or -1 on an error.
 * A missing directory counts as empty. */
static long replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	long done = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*names));
			if (!nn)
				abort();
			names = nn;
		}
		names[n] = strdup(e->d_name);
		if (!names[n])
			abort();
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (replay_file(path) != 0)
				done = -1;
			else if (done >= 0)
				done++;
		}
		free(names[i]);
	}
	free(names);
	return done;
}

static long replay_arg(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		perror(path);
		return -1;
	}
	if (S_ISDIR(st.st_mode))
		return replay_dir(path);
	return replay_file(path) == 0 ? 1 : -1;
}

int main(int argc, char **argv)
{
	const char *top = getenv("top_srcdir");
	char seeds[4096], bad[4096];
	struct timespec t0, t1;
	long ns, nb;

	_Static_assert(XFZ_INPUT_SECONDS == 20, "keep on_alarm's message in step");
	signal(SIGALRM, on_alarm);
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (argc > 1) {
		long total = 0;

		for (int i = 1; i < argc; i++) {
			long r = replay_arg(argv[i]);

			if (r < 0)
				return 1;
			total += r;
		}
		printf("replay_%s: %ld inputs replayed\n", XFZ_TARGET, total);
		return 0;
	}
	if (!top || !*top)
		top = XFZ_SRCDIR;
	snprintf(seeds, sizeof(seeds), "%s/tests/fuzz/seeds/%s", top, XFZ_TARGET);
	snprintf(bad, sizeof(bad), "%s/corpus/known-bad/%s", top, XFZ_TARGET);
	ns = replay_dir(seeds);
	nb = replay_dir(bad);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ns < 0 || nb < 0)
		return 1;
	printf("replay_%s: %ld seeds, %ld known-bad inputs replayed in %.2f s\n", XFZ_TARGET,
	       ns, nb, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (ns == 0) {
		fprintf(stderr, "replay_%s: no seeds in %s: nothing was tested\n", XFZ_TARGET, seeds);
		return 1;
	}
	return 0;
}
