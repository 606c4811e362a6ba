/*
 * test_outpath.c - the output-path rules that need no root: a hard link to
 * the input is refused even with force, a symlink at the name is refused
 * without force and followed (and checked) with it, a dangling symlink is
 * never created through, an existing file needs force (or replace for
 * reports), a new file is made with the mode asked for, /dev/null is a
 * stream only where streams are allowed, and ximg_out_check_name refuses
 * the same aliases.  The loop-device and mount cases are in
 * tests/io/outpath_alias.sh (root).
 */
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
#include "analyzer/io/outpath.h"

static char dir[] = "/tmp/test_outpath.XXXXXX";
static char in[300], link_[300], sym[300], dangling[300], target[300], fresh[300];

static int setup(void **state)
{
	FILE *f;

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(in, sizeof(in), "%s/in.img", dir);
	snprintf(link_, sizeof(link_), "%s/hard.img", dir);
	snprintf(sym, sizeof(sym), "%s/sym.xml", dir);
	snprintf(dangling, sizeof(dangling), "%s/dangling.xml", dir);
	snprintf(target, sizeof(target), "%s/nothing-here", dir);
	snprintf(fresh, sizeof(fresh), "%s/fresh.xml", dir);
	f = fopen(in, "w");
	if (!f)
		return -1;
	fputs("evidence", f);
	fclose(f);
	if (link(in, link_) || symlink(in, sym) || symlink(target, dangling))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(in);
	unlink(link_);
	unlink(sym);
	unlink(dangling);
	unlink(target);
	unlink(fresh);
	rmdir(dir);
	return 0;
}

static struct ximg_out_opts opts(void)
{
	struct ximg_out_opts o;

	memset(&o, 0, sizeof(o));
	o.what = "the report";
	o.in_path[0] = in;
	o.mode = 0600;
	return o;
}

static void test_aliases_refused(void **state)
{
	struct ximg_out_opts o = opts();
	bool created, blk, exists;
	char err[512];
	int fd;

	(void)state;
	o.force = true;
	o.replace = true;
	assert_int_equal(ximg_out_open(in, &o, &fd, &created, &blk, err, sizeof(err)), XERR_USAGE);
	assert_int_equal(ximg_out_open(link_, &o, &fd, &created, &blk, err, sizeof(err)),
			 XERR_USAGE);
	assert_non_null(strstr(err, "refusing"));
	/* Forced, the symlink is followed and what it reaches is the input. */
	assert_int_equal(ximg_out_open(sym, &o, &fd, &created, &blk, err, sizeof(err)), XERR_USAGE);
	assert_int_equal(ximg_out_check_name(link_, &o, &exists, err, sizeof(err)), XERR_USAGE);
	assert_true(exists);
	o.force = false;
	assert_int_equal(ximg_out_open(sym, &o, &fd, &created, &blk, err, sizeof(err)), XERR_USAGE);
	assert_non_null(strstr(err, "symlink"));
}

static void test_dangling_never_created(void **state)
{
	struct ximg_out_opts o = opts();
	bool created, blk;
	char err[512];
	int fd;

	(void)state;
	o.force = true;
	assert_int_equal(ximg_out_open(dangling, &o, &fd, &created, &blk, err, sizeof(err)),
			 XERR_USAGE);
	assert_int_not_equal(access(target, F_OK), 0);
}

static void test_new_and_existing(void **state)
{
	struct ximg_out_opts o = opts();
	struct stat st;
	bool created, blk;
	char err[512];
	int fd;

	(void)state;
	assert_int_equal(ximg_out_open(fresh, &o, &fd, &created, &blk, err, sizeof(err)), 0);
	assert_true(created);
	assert_false(blk);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	assert_int_equal(stat(fresh, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* Existing: refused, then replaced (and emptied) with replace. */
	assert_int_equal(ximg_out_open(fresh, &o, &fd, &created, &blk, err, sizeof(err)),
			 XERR_EXISTS);
	o.replace = true;
	o.truncate = true;
	assert_int_equal(ximg_out_open(fresh, &o, &fd, &created, &blk, err, sizeof(err)), 0);
	assert_false(created);
	close(fd);
	assert_int_equal(stat(fresh, &st), 0);
	assert_int_equal(st.st_size, 0);
}

static void test_streams(void **state)
{
	struct ximg_out_opts o = opts();
	bool created, blk;
	char err[512];
	int fd;

	(void)state;
	assert_int_equal(ximg_out_open("/dev/null", &o, &fd, &created, &blk, err, sizeof(err)),
			 XERR_USAGE);
	o.stream_ok = true;
	assert_int_equal(ximg_out_open("/dev/null", &o, &fd, &created, &blk, err, sizeof(err)), 0);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aliases_refused),
		cmocka_unit_test(test_dangling_never_created),
		cmocka_unit_test(test_new_and_existing),
		cmocka_unit_test(test_streams),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
