/*
 * log_trans.c - op headers and the assembly of committed transactions from
 * record payloads (see log_trans.h).
 *
 * The rules follow what kernel recovery accepts, so that we replay what it
 * would replay and refuse what it would refuse: an op of an unknown tid is
 * skipped unless it starts a transaction; the first region of a
 * transaction is its 16-byte header (which may itself arrive in parts); a
 * region that is not a continuation starts a new item once the current one
 * has all the regions its format region announced; COMMIT hands the
 * transaction over, UNMOUNT drops it, anything else is damage.
 */
#include "formats/log_trans.h"

#include <stdlib.h>
#include <string.h>

#include "formats/endian.h"

#define OFF_OP_TID    0
#define OFF_OP_LEN    4
#define OFF_OP_CLIENT 8
#define OFF_OP_FLAGS  9
#define OFF_ITEM_TYPE 0   /* u16 type of every format region */
#define OFF_ITEM_SIZE 2   /* u16 region count of every format region */
#define XLOG_CLIENT_LOG_ID 0xAAu
#define XLOG_FMT_BIG_LINUX 2u
#define XLOG_FMT_IRIX      3u

_Static_assert(OFF_OP_FLAGS + 1 + 2 == 12, "op header is 12 bytes");

int xfmt_log_op_decode(const uint8_t *buf, size_t len, struct xfmt_log_op *out)
{
	if (len < 12)
		return -1;
	out->tid = xfmt_get_be32(buf + OFF_OP_TID);
	out->len = xfmt_get_be32(buf + OFF_OP_LEN);
	out->clientid = buf[OFF_OP_CLIENT];
	out->flags = buf[OFF_OP_FLAGS];
	return 0;
}

bool xfmt_log_fmt_big(uint32_t h_fmt)
{
	return h_fmt == XLOG_FMT_BIG_LINUX || h_fmt == XLOG_FMT_IRIX;
}

uint16_t xfmt_log_get16(const uint8_t *p, bool big)
{
	return big ? xfmt_get_be16(p) : xfmt_get_le16(p);
}

uint32_t xfmt_log_get32(const uint8_t *p, bool big)
{
	return big ? xfmt_get_be32(p) : xfmt_get_le32(p);
}

uint64_t xfmt_log_get64(const uint8_t *p, bool big)
{
	return big ? xfmt_get_be64(p) : xfmt_get_le64(p);
}

void xfmt_log_asm_init(struct xfmt_log_asm *a, uint64_t max_bytes, xfmt_log_commit_fn commit,
		       void *arg)
{
	memset(a, 0, sizeof(*a));
	a->max_bytes = max_bytes;
	a->commit = commit;
	a->arg = arg;
}

void xfmt_log_trans_free(struct xfmt_log_trans **tp)
{
	struct xfmt_log_trans *t;

	if (!tp || !*tp)
		return;
	t = *tp;
	for (size_t i = 0; i < t->nitems; i++) {
		for (uint32_t r = 0; r < t->items[i].nregions; r++)
			free(t->items[i].regions[r].data);
		free(t->items[i].regions);
	}
	free(t->items);
	free(t);
	*tp = NULL;
}

void xfmt_log_asm_release(struct xfmt_log_asm *a)
{
	for (size_t i = 0; i < a->nopen; i++)
		xfmt_log_trans_free(&a->open[i]);
	free(a->open);
	a->open = NULL;
	a->nopen = a->open_cap = 0;
	a->bytes = 0;
}

const char *xfmt_log_asm_strerror(enum xfmt_log_asm_err e)
{
	switch (e) {
	case XLOG_ASM_OK: return "ok";
	case XLOG_ASM_OP_TRUNCATED: return "an op header or its data runs past the record";
	case XLOG_ASM_BAD_CLIENT: return "an op names an unknown client";
	case XLOG_ASM_BAD_FLAGS: return "an op carries flags recovery rejects";
	case XLOG_ASM_BAD_HEADER: return "a transaction header is damaged";
	case XLOG_ASM_BAD_ITEM: return "an item's region count is impossible";
	case XLOG_ASM_TOO_MANY: return "too many transactions open at once";
	case XLOG_ASM_TOO_BIG: return "the open transactions exceed the memory bound";
	case XLOG_ASM_NOMEM: return "out of memory";
	case XLOG_ASM_CALLBACK: return "replay of a transaction failed";
	}
	return "?";
}

static struct xfmt_log_trans *find_open(struct xfmt_log_asm *a, uint32_t tid, size_t *idx)
{
	for (size_t i = 0; i < a->nopen; i++) {
		if (a->open[i]->tid == tid) {
			*idx = i;
			return a->open[i];
		}
	}
	return NULL;
}

static void drop_open(struct xfmt_log_asm *a, size_t idx)
{
	a->bytes -= a->open[idx]->bytes;
	xfmt_log_trans_free(&a->open[idx]);
	memmove(&a->open[idx], &a->open[idx + 1], (a->nopen - idx - 1) * sizeof(*a->open));
	a->nopen--;
}

static enum xfmt_log_asm_err start_trans(struct xfmt_log_asm *a, uint32_t tid, uint64_t lsn,
					 bool big)
{
	struct xfmt_log_trans *t;

	if (a->nopen >= XFMT_LOG_ASM_MAX_OPEN)
		return XLOG_ASM_TOO_MANY;
	if (a->nopen == a->open_cap) {
		size_t ncap = a->open_cap ? a->open_cap * 2 : 8;
		struct xfmt_log_trans **n = realloc(a->open, ncap * sizeof(*n));

		if (!n)
			return XLOG_ASM_NOMEM;
		a->open = n;
		a->open_cap = ncap;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return XLOG_ASM_NOMEM;
	t->tid = tid;
	t->lsn = lsn;
	t->big = big;
	a->open[a->nopen++] = t;
	return XLOG_ASM_OK;
}

static enum xfmt_log_asm_err charge(struct xfmt_log_asm *a, struct xfmt_log_trans *t, uint32_t len)
{
	if (a->bytes + len > a->max_bytes)
		return XLOG_ASM_TOO_BIG;
	a->bytes += len;
	t->bytes += len;
	return XLOG_ASM_OK;
}

static enum xfmt_log_asm_err new_item(struct xfmt_log_trans *t)
{
	if (t->nitems == t->items_cap) {
		size_t ncap = t->items_cap ? t->items_cap * 2 : 8;
		struct xfmt_log_titem *n = realloc(t->items, ncap * sizeof(*n));

		if (!n)
			return XLOG_ASM_NOMEM;
		t->items = n;
		t->items_cap = ncap;
	}
	memset(&t->items[t->nitems++], 0, sizeof(t->items[0]));
	return XLOG_ASM_OK;
}

/* A region that starts something: the header, or an item's next region. */
static enum xfmt_log_asm_err add_region(struct xfmt_log_asm *a, struct xfmt_log_trans *t,
					const uint8_t *dp, uint32_t len)
{
	struct xfmt_log_titem *it;
	enum xfmt_log_asm_err e;
	uint8_t *copy;

	if (len == 0)
		return XLOG_ASM_OK;
	if (t->nitems == 0) {
		/* The header, whole or its first part. */
		if (t->header_len || len > XLOG_TRANS_HDR_SIZE || len < 4 ||
		    xfmt_log_get32(dp, t->big) != XLOG_TRANS_MAGIC)
			return XLOG_ASM_BAD_HEADER;
		memcpy(t->header, dp, len);
		t->header_len = len;
		return len == XLOG_TRANS_HDR_SIZE ? new_item(t) : XLOG_ASM_OK;
	}
	it = &t->items[t->nitems - 1];
	if (it->total && it->nregions == it->total) {
		e = new_item(t);
		if (e)
			return e;
		it = &t->items[t->nitems - 1];
	}
	if (it->total == 0) {
		uint16_t n;

		if (len < 4)
			return XLOG_ASM_BAD_ITEM;
		n = xfmt_log_get16(dp + OFF_ITEM_SIZE, t->big);
		if (n == 0 || n > XLOG_MAX_REGIONS)
			return XLOG_ASM_BAD_ITEM;
		it->regions = calloc(n, sizeof(*it->regions));
		if (!it->regions)
			return XLOG_ASM_NOMEM;
		it->total = n;
		it->type = xfmt_log_get16(dp + OFF_ITEM_TYPE, t->big);
	}
	if (it->nregions >= it->total)
		return XLOG_ASM_BAD_ITEM;
	e = charge(a, t, len);
	if (e)
		return e;
	copy = malloc(len);
	if (!copy)
		return XLOG_ASM_NOMEM;
	memcpy(copy, dp, len);
	it->regions[it->nregions].data = copy;
	it->regions[it->nregions].len = len;
	it->nregions++;
	return XLOG_ASM_OK;
}

/* The rest of a region split across ops. */
static enum xfmt_log_asm_err add_cont(struct xfmt_log_asm *a, struct xfmt_log_trans *t,
				      const uint8_t *dp, uint32_t len)
{
	struct xfmt_log_region *r;
	enum xfmt_log_asm_err e;
	uint8_t *n;

	if (len == 0)
		return XLOG_ASM_OK;
	if (t->nitems == 0) {
		if (t->header_len == 0 || len != XLOG_TRANS_HDR_SIZE - t->header_len)
			return XLOG_ASM_BAD_HEADER;
		memcpy(t->header + t->header_len, dp, len);
		t->header_len = XLOG_TRANS_HDR_SIZE;
		return new_item(t);
	}
	if (t->items[t->nitems - 1].nregions == 0)
		return XLOG_ASM_BAD_ITEM;
	r = &t->items[t->nitems - 1].regions[t->items[t->nitems - 1].nregions - 1];
	if ((uint64_t)r->len + len > UINT32_MAX)
		return XLOG_ASM_TOO_BIG;
	e = charge(a, t, len);
	if (e)
		return e;
	n = realloc(r->data, (size_t)r->len + len);
	if (!n)
		return XLOG_ASM_NOMEM;
	memcpy(n + r->len, dp, len);
	r->data = n;
	r->len += len;
	return XLOG_ASM_OK;
}

enum xfmt_log_asm_err xfmt_log_asm_record(struct xfmt_log_asm *a, const uint8_t *payload,
					  size_t len, uint32_t num_logops, uint64_t lsn, bool big,
					  size_t *bad_off)
{
	size_t off = 0;
	enum xfmt_log_asm_err e = XLOG_ASM_OK;

	while (off < len && num_logops) {
		struct xfmt_log_op op;
		struct xfmt_log_trans *t;
		size_t idx = 0;
		unsigned flags;

		if (bad_off)
			*bad_off = off;
		if (xfmt_log_op_decode(payload + off, len - off, &op) != 0)
			return XLOG_ASM_OP_TRUNCATED;
		a->ops++;
		if (op.clientid != XLOG_CLIENT_TRANS && op.clientid != XLOG_CLIENT_LOG_ID)
			return XLOG_ASM_BAD_CLIENT;
		if (op.len > len - off - 12)
			return XLOG_ASM_OP_TRUNCATED;
		off += 12;
		num_logops--;
		t = find_open(a, op.tid, &idx);
		if (!t) {
			/* Slack before a transaction starts is skipped. */
			if (op.flags & XLOG_OP_START)
				e = start_trans(a, op.tid, lsn, big);
			off += op.len;
			if (e)
				return e;
			continue;
		}
		flags = op.flags & ~XLOG_OP_END;
		if (flags & XLOG_OP_WAS_CONT)
			flags &= ~XLOG_OP_CONTINUE;
		switch (flags) {
		case 0:
		case XLOG_OP_CONTINUE:
			e = add_region(a, t, payload + off, op.len);
			break;
		case XLOG_OP_WAS_CONT:
			e = add_cont(a, t, payload + off, op.len);
			break;
		case XLOG_OP_COMMIT:
			t->commit_lsn = lsn;
			a->committed++;
			a->cb_rc = a->commit ? a->commit(a->arg, t) : 0;
			drop_open(a, idx);
			if (a->cb_rc)
				return XLOG_ASM_CALLBACK;
			break;
		case XLOG_OP_UNMOUNT:
			drop_open(a, idx);
			break;
		default:
			return XLOG_ASM_BAD_FLAGS;
		}
		if (e)
			return e;
		off += op.len;
	}
	return XLOG_ASM_OK;
}
