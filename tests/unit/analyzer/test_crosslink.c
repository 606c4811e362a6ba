/*
 * test_crosslink.c - the search for blocks claimed twice (check/crosslink.c):
 * who wins by rank, which runs of blocks are handed over, legitimate
 * sharing, and bounds on hostile lists (a fork that maps the whole AG again
 * and again; tiny claims buried under huge ones): the time stays linear or
 * the search stops, and the check's findings stay within their caps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyzer/check/crosslink.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "formats/btrec.h"

struct seen {
	struct xa_xlink x[64];
	size_t          n;       /* conflicts reported (all, even past x[]) */
};

static uint64_t rank_special_first(void *arg, const struct xa_ownrec *r)
{
	(void)arg;
	return xa_owner_is_special(r->owner) ? 0 : 1;
}

static int record(void *arg, const struct xa_xlink *x)
{
	struct seen *s = arg;

	if (s->n < 64)
		s->x[s->n] = *x;
	s->n++;
	return 0;
}

static bool share_data(void *arg, const struct xa_ownrec *a, const struct xa_ownrec *b,
		       uint32_t agbno, uint32_t len)
{
	(void)arg;
	(void)agbno;
	(void)len;
	return !xa_owner_is_special(a->owner) && !xa_owner_is_special(b->owner);
}

static void test_no_overlap(void **state)
{
	const struct xa_ownrec r[] = {
		{ 0, 4, XFS_RMAP_OWN_FS, 0, 0 }, { 4, 10, 131, 0, 0 }, { 14, 1, 132, 0, 0 },
	};
	struct seen s = { .n = 0 };
	struct xa_xlink_ops ops = { rank_special_first, NULL, record, &s };

	(void)state;
	assert_int_equal(xa_xlink_find(r, 3, &ops), 0);
	assert_int_equal(s.n, 0);
}

/* A file over metadata loses exactly the shared blocks, whatever the order. */
static void test_metadata_wins(void **state)
{
	const struct xa_ownrec r[] = {
		{ 3, 2, XFS_RMAP_OWN_INOBT, 0, 0 }, { 4, 5, 133, 0, 0 },
	};
	struct seen s = { .n = 0 };
	struct xa_xlink_ops ops = { rank_special_first, NULL, record, &s };

	(void)state;
	assert_int_equal(xa_xlink_find(r, 2, &ops), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.x[0].agbno, 4);
	assert_int_equal(s.x[0].len, 1);
	assert_int_equal(s.x[0].loser->owner, 133);
	assert_int_equal(s.x[0].winner->owner, XFS_RMAP_OWN_INOBT);
}

/* A file across two holders loses one run to each, named separately;
 * sharing allowed by may_share is no conflict. */
static void test_two_holders_and_sharing(void **state)
{
	const struct xa_ownrec r[] = {
		{ 10, 4, XFS_RMAP_OWN_LOG, 0, 0 }, { 12, 10, 140, 0, 0 }, { 18, 2, XFS_RMAP_OWN_AG, 0, 0 },
	};
	const struct xa_ownrec d[] = { { 10, 4, 140, 0, 0 }, { 12, 4, 141, 0, 0 } };
	struct seen s = { .n = 0 };
	struct xa_xlink_ops ops = { rank_special_first, NULL, record, &s };

	(void)state;
	assert_int_equal(xa_xlink_find(r, 3, &ops), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.x[0].agbno, 12);
	assert_int_equal(s.x[0].len, 2);
	assert_int_equal(s.x[0].winner->owner, XFS_RMAP_OWN_LOG);
	assert_int_equal(s.x[1].agbno, 18);
	assert_int_equal(s.x[1].len, 2);
	assert_int_equal(s.x[1].winner->owner, XFS_RMAP_OWN_AG);
	s.n = 0;
	assert_int_equal(xa_xlink_find(d, 2, &ops), 0);
	assert_int_equal(s.n, 1);   /* no may_share: data against data conflicts */
	ops.may_share = share_data;
	s.n = 0;
	assert_int_equal(xa_xlink_find(d, 2, &ops), 0);
	assert_int_equal(s.n, 0);
}

/* The evidence: the refcountbt covers shared data; attr forks never share. */
static void test_evidence(void **state)
{
	struct xa_ownrec rc[] = { { 20, 5, 2, 0, 0 }, { 10, 5, 2, 0, 0 }, { 15, 5, 3, 0, 0 } };
	struct xa_ownlist refc = { rc, 3, 3 };
	struct xa_xlink_ev ev = { .reflink = true, .refc = &refc, .refc_ok = true };
	struct xa_ownrec a = { 10, 20, 131, 0, 0 }, b = { 10, 20, 132, 0, 0 };
	struct xa_ownrec at = { 10, 20, 133, 0, XA_OWN_ATTR };

	(void)state;
	assert_true(xa_xlink_shared(&ev, &a, &b, 10, 15));   /* 10-24: three joined records */
	assert_false(xa_xlink_shared(&ev, &a, &b, 20, 6));   /* 25 is not shared */
	assert_false(xa_xlink_shared(&ev, &a, &at, 12, 1));
	ev.reflink = false;
	assert_false(xa_xlink_shared(&ev, &a, &b, 10, 1));
	xa_xlink_ev_release(&ev);
}

#define AGLEN 25600u

/* One fork mapping the whole AG n times: linear, one conflict per copy. */
static void test_hostile_repeats(void **state)
{
	size_t n = 20000;
	struct xa_ownrec *r = calloc(n, sizeof(*r));
	struct seen s = { .n = 0 };
	struct xa_xlink_ops ops = { rank_special_first, NULL, record, &s };

	(void)state;
	assert_non_null(r);
	for (size_t i = 0; i < n; i++)
		r[i] = (struct xa_ownrec){ 0, AGLEN, 131, i * AGLEN, 0 };
	assert_int_equal(xa_xlink_find(r, n, &ops), 0);
	assert_int_equal(s.n, n - 1);
	free(r);
}

/* Tiny claims ranked first, huge ones over them: quadratic work unless
 * the budget stops it. */
static uint64_t rank_by_len(void *arg, const struct xa_ownrec *r)
{
	(void)arg;
	return r->len;
}

static int count_only(void *arg, const struct xa_xlink *x)
{
	(void)x;
	(*(size_t *)arg)++;
	return 0;
}

static void test_hostile_budget(void **state)
{
	size_t n = 40000, half = n / 2, calls = 0;
	struct xa_ownrec *r = calloc(n, sizeof(*r));
	struct xa_xlink_ops ops = { rank_by_len, NULL, count_only, &calls };
	int rc;

	(void)state;
	assert_non_null(r);
	for (size_t i = 0; i < half; i++) {
		r[2 * i] = (struct xa_ownrec){ 0, AGLEN, 200 + i, 0, 0 };
		r[2 * i + 1] = (struct xa_ownrec){ (uint32_t)i, 1, 100, i, 0 };
	}
	/* sorted by start: the whole-AG records all start at 0 */
	rc = xa_xlink_find(r, n, &ops);
	assert_true(rc == XA_XLINK_TRUNCATED || rc == 0);
	/* the budget: 64 per record plus 2^20, each step at most one call */
	assert_true(calls <= 64 * n + (1u << 20));
	free(r);
}

/* The check: findings capped per owner and per AG. */
static void test_check_caps(void **state)
{
	size_t n = 5000;
	struct xa_ctx ctx;
	struct xa_ownrec *r = calloc(n + 1, sizeof(*r));
	struct xa_ownlist l = { r, n + 1, n + 1 };
	struct xa_xlink_ev ev = { .reflink = false };
	size_t per[8] = { 0 };

	(void)state;
	assert_non_null(r);
	memset(&ctx, 0, sizeof(ctx));
	xa_findings_init(&ctx.findings);
	r[0] = (struct xa_ownrec){ 0, AGLEN, XFS_RMAP_OWN_LOG, 0, 0 };
	for (size_t i = 0; i < n; i++)
		r[i + 1] = (struct xa_ownrec){ (uint32_t)(i % AGLEN), 1, 131 + i % 8, i, 0 };
	xa_ownlist_sort(&l);
	assert_int_equal(xa_check_crosslinks(&ctx, 0, &l, &ev), 0);
	assert_true(ctx.findings.count > 0);
	assert_true(ctx.findings.count <= XA_XLINK_FINDINGS_AG);
	for (size_t i = 0; i < ctx.findings.count; i++) {
		const struct xprob *p = &ctx.findings.items[i].p;

		assert_int_equal(p->code, XP_ownCrossLinked);
		assert_true(p->has & XPROB_HAS_OWNERS);
		assert_int_equal(p->owners[1].owner, XFS_RMAP_OWN_LOG);
		assert_true(p->owners[0].owner >= 131 && p->owners[0].owner < 139);
		per[p->owners[0].owner - 131]++;
	}
	for (int k = 0; k < 8; k++)
		assert_true(per[k] <= XA_XLINK_FINDINGS_OWNER);
	xa_findings_release(&ctx.findings);
	free(r);
}

/* Owners in messages: special owners by name, never as 20-digit numbers. */
static void test_render(void **state)
{
	struct xa_finding fd = { .what = "ownership" };
	char msg[512];

	(void)state;
	fd.p.code = XP_ownCrossLinked;
	fd.p.has = XPROB_HAS_OBSERVED | XPROB_HAS_OWNERS | XPROB_HAS_AGBNO;
	fd.p.agbno = 12;
	fd.p.observed = 2;
	fd.p.owners[0] = (struct xprob_owner){ 131, 7, 0 };
	fd.p.owners[1] = (struct xprob_owner){ XFS_RMAP_OWN_LOG, 0, 0 };
	xa_finding_render(&fd, msg, sizeof(msg));
	assert_string_equal(msg, "2 blocks from agbno 12 are claimed twice: by inode 131's data "
				 "fork at file offset 7 and by the log (LOG)");
	fd.p.owners[1] = (struct xprob_owner){ 140, 0, XA_OWN_ATTR | XA_OWN_BMBT };
	xa_finding_render(&fd, msg, sizeof(msg));
	assert_non_null(strstr(msg, "and by a block of inode 140's attr-fork bmbt"));
	/* the rmapbt naming another owner */
	fd.p.code = XP_rmapWrongOwner;
	fd.p.field = "inode's data fork";
	fd.p.owners[0] = (struct xprob_owner){ 131, 0, 0 };
	fd.p.owners[1] = (struct xprob_owner){ XFS_RMAP_OWN_AG, 0, 0 };
	xa_finding_render(&fd, msg, sizeof(msg));
	assert_non_null(strstr(msg, "names owner AG for"));
	assert_null(strstr(msg, "18446744073709551"));
	/* an rmap record's owner no special owner has: as xfs_db prints it */
	memset(&fd.p, 0, sizeof(fd.p));
	fd.p.code = XP_btBadRecord;
	fd.p.has = XPROB_HAS_OBSERVED | XPROB_HAS_OFF;
	fd.p.field = "owner";
	fd.p.off = 3;
	fd.p.observed = (uint64_t)-12;
	xa_finding_render(&fd, msg, sizeof(msg));
	assert_string_equal(msg, "record 3: owner = -12 is invalid");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_overlap),
		cmocka_unit_test(test_metadata_wins),
		cmocka_unit_test(test_two_holders_and_sharing),
		cmocka_unit_test(test_evidence),
		cmocka_unit_test(test_hostile_repeats),
		cmocka_unit_test(test_hostile_budget),
		cmocka_unit_test(test_check_caps),
		cmocka_unit_test(test_render),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
