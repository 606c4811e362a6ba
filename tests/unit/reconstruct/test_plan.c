/*
 * test_plan.c - the repair plan's bookkeeping against a naive model: tens of
 * thousands of writes in random order (the overlap check and xr_plan_read
 * use an ordered index; a slip there would lose or misplace bytes), partial
 * overlaps refused, same-range writes replacing, no-op changes dropped and
 * the rest sorted by xr_plan_finish; all of it again with every byte
 * spilled to the temporary file, and with the memory bound met half way.
 * Answers are held to the actions table: one outside it is kept, counted
 * and named.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "reconstruct/plan.h"

#define IMG_BYTES (4u << 20)
#define SLOT      64u           /* writes land in 64-byte slots ... */
#define NSLOTS    (IMG_BYTES / SLOT)

struct fx {
	uint8_t       *orig;        /* the image */
	uint8_t       *model;       /* what it should read after the plan */
	struct xa_ctx  ctx;
	struct xr_plan plan;
	int            action;
};

static uint32_t rnd_state = 12345;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

static void fx_open(struct fx *f, uint64_t mem_max)
{
	struct ximg *img = NULL;

	memset(f, 0, sizeof(*f));
	f->orig = malloc(IMG_BYTES);
	f->model = malloc(IMG_BYTES);
	assert_non_null(f->orig);
	assert_non_null(f->model);
	for (size_t i = 0; i < IMG_BYTES; i++)
		f->orig[i] = (uint8_t)rnd();
	memcpy(f->model, f->orig, IMG_BYTES);
	assert_int_equal(ximg_open_mem(f->orig, IMG_BYTES, 1, "plan-test", &img), 0);
	assert_int_equal(xa_ctx_open_img(&f->ctx, img, NULL), 0);
	xr_plan_init(&f->plan);
	f->plan.mem_max = mem_max;
	/* any kind: the bookkeeping of writes does not depend on it */
	f->action = xr_plan_action(&f->plan, XR_ACT_FIX_INODE, XR_NO_AG, 0, "test action");
	assert_true(f->action >= 0);
}

static void fx_close(struct fx *f)
{
	xr_plan_release(&f->plan);
	xa_ctx_release(&f->ctx);
	free(f->orig);
	free(f->model);
}

static int put(struct fx *f, uint64_t off, size_t len, uint8_t seed)
{
	uint8_t buf[4 * SLOT];
	int rc;

	assert_true(len <= sizeof(buf));
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(seed + i * 7);
	rc = xr_plan_write(&f->plan, f->action, "test", XR_NO_AG, 0, 0, off, buf, len);
	if (rc == 0)
		memcpy(f->model + off, buf, len);
	return rc;
}

/* Random reads through the plan equal the model. */
static void check_reads(struct fx *f)
{
	uint8_t *buf = malloc(8192);

	assert_non_null(buf);
	for (int k = 0; k < 2000; k++) {
		size_t len = 1 + rnd() % 8192;
		uint64_t off = rnd() % (IMG_BYTES - len);

		assert_int_equal(xr_plan_read(&f->plan, &f->ctx, off, buf, len), 0);
		assert_memory_equal(buf, f->model + off, len);
	}
	free(buf);
}

/* Fill most slots in a random order: whole slots, slot heads, two-slot
 * runs; every third pass over a slot rewrites the same range. */
static void fill(struct fx *f)
{
	uint32_t *order = malloc(NSLOTS * sizeof(*order));

	assert_non_null(order);
	for (uint32_t i = 0; i < NSLOTS; i++)
		order[i] = i;
	for (uint32_t i = NSLOTS - 1; i > 0; i--) {
		uint32_t j = rnd() % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (uint32_t i = 0; i < NSLOTS; i++) {
		uint32_t s = order[i];

		if (s % 4 == 3)
			continue;                      /* untouched slots */
		if (s % 4 == 1)
			continue;                      /* covered by slot s-1's run */
		if (s % 4 == 0)
			assert_int_equal(put(f, (uint64_t)s * SLOT, 2 * SLOT, (uint8_t)s), 0);
		else
			assert_int_equal(put(f, (uint64_t)s * SLOT + 5, 17, (uint8_t)s), 0);
	}
	free(order);
}

static void run_plan_model(uint64_t mem_max)
{
	struct fx f;
	size_t before;

	fx_open(&f, mem_max);
	fill(&f);
	before = f.plan.nchanges;
	assert_int_equal(before, NSLOTS / 2);

	/* partial overlaps, from either side and inside, are refused ... */
	assert_int_equal(put(&f, 0 * SLOT + 10, 4, 1), XERR_USAGE);          /* inside */
	assert_int_equal(put(&f, 2 * SLOT + 1, 8, 1), XERR_USAGE);           /* head of 2's */
	assert_int_equal(put(&f, 2 * SLOT + 20, 8, 1), XERR_USAGE);          /* tail of 2's */
	assert_int_equal(put(&f, 3 * SLOT - 1, 2 * SLOT, 1), XERR_USAGE);    /* spans 3 into 4 */
	/* ... and touching neighbours are not */
	assert_int_equal(put(&f, 2 * SLOT, 5, 9), 0);
	assert_int_equal(put(&f, 2 * SLOT + 22, 42, 9), 0);
	/* the same range again replaces the bytes */
	assert_int_equal(put(&f, 4 * SLOT, 2 * SLOT, 77), 0);
	assert_int_equal(put(&f, 6 * SLOT + 5, 17, 78), 0);
	assert_int_equal(f.plan.nchanges, before + 2);
	check_reads(&f);

	/* a change equal to the image's bytes is dropped by finish */
	assert_int_equal(xr_plan_write(&f.plan, f.action, "test", XR_NO_AG, 0, 0, 3 * SLOT,
				       f.orig + 3 * SLOT, SLOT), 0);
	assert_int_equal(xr_plan_finish(&f.plan, &f.ctx), 0);
	assert_int_equal(f.plan.nchanges, before + 2);
	{
		uint8_t *buf = malloc(xr_plan_max_change(&f.plan));
		uint64_t sum = 0;

		assert_non_null(buf);
		for (size_t i = 0; i < f.plan.nchanges; i++) {
			const struct xr_change *c = &f.plan.changes[i];
			const uint8_t *b = xr_plan_change_bytes(&f.plan, c, buf);

			if (i)
				assert_true(f.plan.changes[i - 1].offset + f.plan.changes[i - 1].len <=
					    c->offset);
			assert_non_null(b);
			assert_memory_equal(b, f.model + c->offset, c->len);
			sum += c->len;
		}
		assert_int_equal(sum, xr_plan_bytes(&f.plan));
		free(buf);
	}
	check_reads(&f);
	if (mem_max == 1)
		assert_int_equal(f.plan.mem_bytes, 0);
	fx_close(&f);
}

static void test_in_memory(void **state)
{
	(void)state;
	run_plan_model(0);
}

static void test_all_spilled(void **state)
{
	(void)state;
	run_plan_model(1);
}

static void test_half_spilled(void **state)
{
	(void)state;
	run_plan_model(IMG_BYTES / 4);
}

/* The kinds are the table's: one outside it starts no action. */
static void test_action_kinds(void **state)
{
	struct xr_plan p;

	(void)state;
	xr_plan_init(&p);
	assert_int_equal(xr_plan_action(&p, XR_ACT_COUNT, XR_NO_AG, 0, "none"), XERR_USAGE);
	assert_int_equal(xr_plan_action(&p, XR_ACT_REBUILD_AG, 3, 0, "AG %d", 3), 0);
	assert_int_equal(p.nactions, 1);
	assert_int_equal(p.actions[0].kind, XR_ACT_REBUILD_AG);
	assert_string_equal(xr_action_name(p.actions[0].kind), "rebuild-ag");
	assert_string_equal(p.actions[0].text, "AG 3");
	xr_plan_release(&p);
}

/* An answer whose fix class the action's row lacks is kept and counted;
 * the first is the one named. */
static void test_answers_checked(void **state)
{
	struct xr_plan p;
	char line[512];
	int sb, ino;

	(void)state;
	xr_plan_init(&p);
	sb = xr_plan_action(&p, XR_ACT_REWRITE_SUPERBLOCKS, XR_NO_AG, 0, "sb");
	ino = xr_plan_action(&p, XR_ACT_FIX_INODE, 0, 128, "inode");
	assert_int_equal(sb, 0);
	assert_int_equal(ino, 1);
	assert_int_equal(xr_plan_answer(&p, sb, 0, XP_sbBadMagic), 0);
	assert_int_equal(xr_plan_answer(&p, sb, 1, XP_cntSbCounter), 0);
	assert_int_equal(xr_plan_answer(&p, ino, 2, XP_inoBadCrc), 0);
	assert_int_equal(p.mismatch.count, 0);
	assert_int_equal(xr_plan_mismatch_text(&p, line, sizeof(line)), 0);
	assert_string_equal(line, "");

	assert_int_equal(xr_plan_answer(&p, sb, 3, XP_nsFtypeMismatch), 0);
	assert_int_equal(p.mismatch.count, 1);
	assert_int_equal(p.actions[sb].nfindings, 3);       /* kept all the same */
	assert_int_equal(xr_plan_answer(&p, sb, 3, XP_nsFtypeMismatch), 0);
	assert_int_equal(p.mismatch.count, 1);              /* the same answer once */
	assert_int_equal(xr_plan_answer(&p, ino, 4, XP_agfBadMagic), 0);
	assert_int_equal(p.mismatch.count, 2);
	assert_int_equal(p.mismatch.action, (size_t)sb);
	assert_int_equal(p.mismatch.finding, 3);
	assert_int_equal(xr_plan_mismatch_text(&p, line, sizeof(line)), 2);
	assert_non_null(strstr(line, "2 answers"));
	assert_non_null(strstr(line, "A1 rewrite-superblocks answers F4 nsFtypeMismatch"));
	assert_non_null(strstr(line, "FIX_DIRECTORY"));
	assert_int_equal(xr_plan_answer(&p, 2, 0, XP_sbBadMagic), XERR_USAGE);
	xr_plan_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_memory),
		cmocka_unit_test(test_all_spilled),
		cmocka_unit_test(test_half_spilled),
		cmocka_unit_test(test_action_kinds),
		cmocka_unit_test(test_answers_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
