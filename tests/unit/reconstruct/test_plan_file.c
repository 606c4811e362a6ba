/*
 * test_plan_file.c - the plan/undo container is input: a well-formed file
 * loads with every field; each damaged length, digest, frame or index is
 * refused whole (XERR_FORMAT, or XERR_UNSUPPORTED for another version), and
 * the wrong kind of file is a usage error.  The containers are built with
 * the same save path `plan` and `apply --undo` use, then damaged byte by
 * byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analyzer/errors.h"
#include "analyzer/io/sha256.h"
#include "formats/endian.h"
#include "reconstruct/plan_file.h"

static char dir[64];
static char path[128];

static const uint8_t payload[12] = "AAAABBBBBBBB";
static char sha_a[65], sha_b[65], sha_p[65];
static const char *before = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

/* An index with the given change offsets, payload length and an extra
 * string spliced in before the root's children. */
static char *make_index(uint64_t off1, uint64_t off2, uint64_t plen, const char *extra,
			const char *after2)
{
	char *s = malloc(4096);

	snprintf(s, 4096,
		 "<?xml version=\"1.0\"?>\n%s<xfsrecon-plan version=\"1\">"
		 "<filesystem uuid=\"5e2c4a10-7d3b-4c1e-9f00-000000000001\" blocksize=\"4096\" "
		 "sectsize=\"512\" agblocks=\"25600\" agcount=\"4\" dblocks=\"102400\" "
		 "size=\"419430400\"/>"
		 "<payload length=\"%llu\" sha256=\"%s\"/>"
		 "<changes><change offset=\"%llu\" length=\"4\" structure=\"agf\" ag=\"0\" agbno=\"0\" "
		 "action=\"A1\" before=\"%s\" after=\"%s\"/>"
		 "<change offset=\"%llu\" length=\"8\" structure=\"inode\" ino=\"131\" action=\"A2\" "
		 "before=\"%s\" after=\"%s\"/></changes></xfsrecon-plan>\n",
		 extra, (unsigned long long)plen, sha_p, (unsigned long long)off1, before, sha_a,
		 (unsigned long long)off2, before, after2 ? after2 : sha_b);
	return s;
}

static int save(const char *index, enum xr_pf_kind kind)
{
	char err[256];

	unlink(path);
	return xr_pf_save(path, kind, (const uint8_t *)index, strlen(index), payload,
			  sizeof(payload), false, NULL, NULL, err, sizeof(err));
}

static int load(int want)
{
	struct xr_planfile pf;
	char err[256];
	int rc = xr_pf_load(path, want, &pf, err, sizeof(err));

	if (rc == 0)
		xr_pf_release(&pf);
	return rc;
}

static int setup(void **state)
{
	uint8_t d[32];

	(void)state;
	snprintf(dir, sizeof(dir), "test_plan_file.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/p.plan", dir);
	xsha256(payload, 4, d);
	xsha256_hex(d, sha_a);
	xsha256(payload + 4, 8, d);
	xsha256_hex(d, sha_b);
	xsha256(payload, sizeof(payload), d);
	xsha256_hex(d, sha_p);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	rmdir(dir);
	return 0;
}

static void test_good(void **state)
{
	char *ix = make_index(4096, 8192, 12, "", NULL);
	struct xr_planfile pf;
	char err[256];

	(void)state;
	assert_int_equal(save(ix, XR_PF_PLAN), 0);
	assert_int_equal(xr_pf_load(path, XR_PF_PLAN, &pf, err, sizeof(err)), 0);
	assert_int_equal(pf.kind, XR_PF_PLAN);
	assert_int_equal(pf.nchanges, 2);
	assert_int_equal(pf.changes[0].offset, 4096);
	assert_int_equal(pf.changes[1].payload_off, 4);
	assert_int_equal(pf.changes[1].ino, 131);
	assert_int_equal(pf.changes[1].action, 2);
	assert_int_equal(pf.changes[0].agno, 0);
	assert_int_equal(pf.fs.agcount, 4);
	assert_int_equal(pf.fs.dblocks, 102400);
	assert_int_equal(pf.fs.uuid[15], 1);
	assert_string_equal(pf.changes[1].structure, "inode");
	assert_memory_equal(pf.payload, payload, sizeof(payload));
	xr_pf_release(&pf);
	/* The other kind is a usage error, not a damaged file. */
	assert_int_equal(load(XR_PF_UNDO), XERR_USAGE);
	assert_int_equal(load(0), 0);
	/* An existing file is never replaced unless asked. */
	assert_int_equal(xr_pf_save(path, XR_PF_PLAN, (const uint8_t *)ix, strlen(ix), payload,
				    sizeof(payload), false, NULL, NULL, err, sizeof(err)),
			 XERR_EXISTS);
	free(ix);
}

/* Save the good file, then overwrite len bytes at off (off < 0: from the end). */
static int damaged(long off, const void *bytes, size_t len, bool truncate_only, long newsize)
{
	char *ix = make_index(4096, 8192, 12, "", NULL);
	FILE *f;

	save(ix, XR_PF_PLAN);
	free(ix);
	if (truncate_only) {
		if (truncate(path, newsize) != 0)
			return -100;
		return load(XR_PF_PLAN);
	}
	f = fopen(path, "r+b");
	if (!f)
		return -100;
	fseek(f, off, off < 0 ? SEEK_END : SEEK_SET);
	fwrite(bytes, 1, len, f);
	fclose(f);
	return load(XR_PF_PLAN);
}

static void test_header(void **state)
{
	uint8_t big[8], v2[4], one = 0x5a;
	long size;
	FILE *f;

	(void)state;
	assert_int_equal(damaged(0, "XFSRPLAX", 8, false, 0), XERR_FORMAT);
	xfmt_put_be32(v2, 2);
	assert_int_equal(damaged(8, v2, 4, false, 0), XERR_UNSUPPORTED);
	xfmt_put_be64(big, 1ull << 40);
	assert_int_equal(damaged(16, big, 8, false, 0), XERR_FORMAT);   /* index length */
	assert_int_equal(damaged(24, big, 8, false, 0), XERR_FORMAT);   /* index frame */
	assert_int_equal(damaged(32, big, 8, false, 0), XERR_FORMAT);   /* payload length */
	xfmt_put_be64(big, UINT64_MAX);
	assert_int_equal(damaged(40, big, 8, false, 0), XERR_FORMAT);   /* payload frame */
	assert_int_equal(damaged(48, &one, 1, false, 0), XERR_FORMAT);  /* index digest */
	assert_int_equal(damaged(-3, &one, 1, false, 0), XERR_FORMAT);  /* payload frame */
	assert_int_equal(damaged(100, &one, 1, false, 0), XERR_FORMAT); /* index frame */
	assert_int_equal(damaged(0, NULL, 0, true, 50), XERR_FORMAT);   /* short header */
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	assert_int_equal(damaged(0, NULL, 0, true, size - 1), XERR_FORMAT);
	assert_int_equal(damaged(0, NULL, 0, true, size + 1), XERR_FORMAT);
}

static void expect_index(char *ix, int want)
{
	assert_int_equal(save(ix, XR_PF_PLAN), 0);
	assert_int_equal(load(XR_PF_PLAN), want);
	free(ix);
}

static void test_index(void **state)
{
	(void)state;
	expect_index(make_index(4096, 4098, 12, "", NULL), XERR_FORMAT);    /* overlap */
	expect_index(make_index(8192, 4096, 12, "", NULL), XERR_FORMAT);    /* out of order */
	expect_index(make_index(4096, 8192, 11, "", NULL), XERR_FORMAT);    /* payload length */
	expect_index(make_index(4096, 8192, 12, "", sha_a), XERR_FORMAT);   /* bytes vs after */
	expect_index(make_index(4096, 8192, 12, "", before), XERR_FORMAT);  /* before == after */
	expect_index(make_index(UINT64_MAX - 2, 8192, 12, "", NULL), XERR_FORMAT); /* wraps */
	expect_index(make_index(4096, 8192, 12,
				"<!DOCTYPE x [<!ENTITY a \"aaaa\">]>", NULL), XERR_FORMAT);
	expect_index(strdup("<?xml version=\"1.0\"?><xfsrecon-plan version=\"1\"/>"), XERR_FORMAT);
	expect_index(strdup("<?xml version=\"1.0\"?><xfsrecon-plan version=\"2\"/>"), XERR_FORMAT);
	expect_index(strdup("<xfsrecon-plan version=\"1\"><filesystem"), XERR_FORMAT);
	/* an undo file needs the plan it undoes */
	{
		char *ix = make_index(4096, 8192, 12, "", NULL);
		char *p = strstr(ix, "xfsrecon-plan"), *q = strstr(p + 1, "xfsrecon-plan");

		memcpy(p, "xfsrecon-undo", 13);
		memcpy(q, "xfsrecon-undo", 13);
		assert_int_equal(save(ix, XR_PF_UNDO), 0);
		assert_int_equal(load(XR_PF_UNDO), XERR_FORMAT);
		free(ix);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_index),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
