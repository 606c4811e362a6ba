/*
 * test_output_sync.c - a repaired image left pending (written, writeback
 * started, not yet synced) is finished by xr_output_sync: synced and closed
 * when all is well; when the sync fails, an OUT the write created is removed
 * (it may not hold what was written) and one it did not create is left; and
 * nothing pending is a no-op.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "analyzer/errors.h"
#include "reconstruct/output.h"

static char dir[64];
static char path[128];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/xr-outsync-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/out.img", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	rmdir(dir);
	return 0;
}

static bool fd_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1 || errno != EBADF;
}

static void test_nothing_pending(void **state)
{
	struct xr_output_pending p = { .fd = -1 };
	char err[128] = "x";

	(void)state;
	assert_int_equal(xr_output_sync(&p, err, sizeof(err)), 0);
	assert_string_equal(err, "");
}

static void test_synced_and_closed(void **state)
{
	struct xr_output_pending p = { .fd = -1 };
	char err[128];
	struct stat st;
	int fd;

	(void)state;
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "XFSB", 4), 4);
	p.fd = fd;
	p.created = true;
	p.path = path;
	assert_int_equal(xr_output_sync(&p, err, sizeof(err)), 0);
	assert_int_equal(p.fd, -1);
	assert_false(fd_open(fd));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 4);
}

/*
 * OUT made at path, then a pending write whose descriptor is a pipe's write
 * end: a pipe cannot be synced (EINVAL), the stand-in for a disk that
 * failed.  Returns the sync's result; *rd is the pipe's read end.
 */
static int failed_sync(bool created, char *err, size_t errlen, int *wr, int *rd)
{
	struct xr_output_pending p = { .fd = -1 };
	int fd, pfd[2], rc;

	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pipe(pfd), 0);
	p.fd = pfd[1];
	p.created = created;
	p.path = path;
	rc = xr_output_sync(&p, err, errlen);
	assert_int_equal(p.fd, -1);
	*wr = pfd[1];
	*rd = pfd[0];
	return rc;
}

static void test_failed_sync_removes_created(void **state)
{
	char err[128];
	int wr, rd;

	(void)state;
	assert_int_equal(failed_sync(true, err, sizeof(err), &wr, &rd), XERR_IO);
	assert_non_null(strstr(err, "fsync"));
	assert_non_null(strstr(err, path));
	assert_false(fd_open(wr));
	assert_int_equal(access(path, F_OK), -1);
	close(rd);
}

static void test_failed_sync_keeps_existing(void **state)
{
	char err[128];
	int wr, rd;

	(void)state;
	/* a forced OUT that existed before */
	assert_int_equal(failed_sync(false, err, sizeof(err), &wr, &rd), XERR_IO);
	assert_false(fd_open(wr));
	assert_int_equal(access(path, F_OK), 0);
	close(rd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_pending),
		cmocka_unit_test_setup_teardown(test_synced_and_closed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_sync_removes_created, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_sync_keeps_existing, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
