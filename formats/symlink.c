/*
 * symlink.c - local and remote symlink targets, the XSLM header, and the
 * assembly of a remote target.  Rules: the kernel's xfs_symlink_verify,
 * xfs_symlink_hdr_ok, xfs_symlink_shortform_verify, and xfs_repair's
 * process_symlink (size below MAXPATHLEN, no NUL byte), one finding each.
 */
#include "formats/symlink.h"

#include <string.h>

#include "formats/crc32c.h"
#include "formats/endian.h"

_Static_assert(XFMT_RMT_CRC_OFF == XFMT_SYMLINK_CRC_OFF, "symlink crc offset");

/* ----------------------------------------------------------- local */

const uint8_t *xfmt_symlink_local(const uint8_t *fork, size_t forksize, uint64_t size,
				  size_t *len)
{
	if (!fork) {
		*len = 0;
		return NULL;
	}
	*len = size < forksize ? (size_t)size : forksize;
	return fork;
}

/* Size rule shared by both forms: 1..MAXLEN-1 bytes (xfs_repair's limit). */
static unsigned check_size(uint64_t size, const struct xprob_sink *sink)
{
	if (size == 0 || size >= XFMT_SYMLINK_MAXLEN)
		return (unsigned)xprob_emit_val(sink, XP_symBadSize, "core.size", 0,
						XFMT_SYMLINK_MAXLEN - 1, size);
	return 0;
}

static unsigned check_nul(const uint8_t *t, size_t len, const struct xprob_sink *sink)
{
	const uint8_t *nul = len ? memchr(t, 0, len) : NULL;

	if (!nul)
		return 0;
	return (unsigned)xprob_emit(sink, XP_symNulInTarget, "target", (uint64_t)(nul - t));
}

unsigned xfmt_symlink_local_verify(const uint8_t *fork, size_t forksize, uint64_t size,
				   const struct xprob_sink *sink)
{
	const uint8_t *t;
	size_t len;
	unsigned n = check_size(size, sink);

	if (size > forksize)
		n += (unsigned)xprob_emit_val(sink, XP_symLocalOverflow, "core.size", 0, forksize,
					      size);
	t = xfmt_symlink_local(fork, forksize, size, &len);
	if (t)
		n += check_nul(t, len, sink);
	return n;
}

/* ---------------------------------------------------------- remote */

size_t xfmt_symlink_payload_off(bool v5)
{
	return v5 ? XFMT_SYMLINK_HDR_LEN : 0;
}

size_t xfmt_symlink_buf_space(size_t buflen, bool v5)
{
	size_t hdr = xfmt_symlink_payload_off(v5);

	return buflen > hdr ? buflen - hdr : 0;
}

static const struct xfmt_rmt_kind symlink_rmt_kind = {
	.magic = XFS_SYMLINK_MAGIC,
	/* The whole target, with its NUL, must fit MAXPATHLEN. */
	.payload_max = XFMT_SYMLINK_MAXLEN - 1,
	/* The LSN is not checked: that needs the log head. */
	.check_lsn = false,
	.unreadable = XP_symUnreadable, .bad_magic = XP_symBadMagic, .bad_crc = XP_symBadCrc,
	.bad_uuid = XP_symBadUuid, .bad_blkno = XP_symBadBlkno, .bad_range = XP_symBadRange,
	.bad_owner = XP_symBadOwner, .mismatch = XP_symHdrMismatch,
	.f_magic = "magic", .f_crc = "crc", .f_uuid = "uuid", .f_bno = "bno", .f_bytes = "bytes",
	.f_offset = "offset", .f_owner = "owner",
};

unsigned xfmt_symlink_rmt_verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
				 const struct xfmt_rmt_expect *exp,
				 const struct xprob_sink *sink)
{
	if (!g->v5)
		return 0;  /* raw target bytes: nothing describes them */
	/* One header and one CRC over the whole mapping. */
	return xfmt_rmt_verify(buf, len, len, g, &symlink_rmt_kind, exp, sink);
}

/* ------------------------------------------------------------ map */

unsigned xfmt_symlink_map_verify(const struct xfmt_bmbt_rec *v, size_t n,
				 const struct xfmt_geom *g, const struct xprob_sink *sink)
{
	size_t per = xfmt_symlink_buf_space(g->blocksize, g->v5);
	uint64_t max = per ? (XFMT_SYMLINK_MAXLEN + per - 1) / per : 0, left = max, next = 0;

	if (n > max)
		return (unsigned)xprob_emit_val(sink, XP_symBadMap, "extents", 0, max, n);
	for (size_t i = 0; i < n; i++) {
		if (v[i].startoff != next)
			return (unsigned)xprob_emit_val(sink, XP_symBadMap, "startoff", i, max,
							v[i].startoff);
		if (v[i].blockcount == 0 || v[i].blockcount > left)
			return (unsigned)xprob_emit_val(sink, XP_symBadMap, "blockcount", i, max,
							v[i].blockcount);
		left -= v[i].blockcount;
		next += v[i].blockcount;
	}
	return 0;
}

/* -------------------------------------------------------- assembly */

void xfmt_symlink_asm_init(struct xfmt_symlink_asm *a, const struct xfmt_geom *g,
			   uint64_t owner, uint64_t size)
{
	memset(a, 0, sizeof(*a));
	/* A hostile size never makes the copy leave target[]. */
	xfmt_rmt_cursor_init(&a->cur, g, owner,
			     size < XFMT_SYMLINK_MAXLEN ? (uint32_t)size : XFMT_SYMLINK_MAXLEN - 1);
	a->size = size;
}

unsigned xfmt_symlink_asm_add(struct xfmt_symlink_asm *a, const uint8_t *buf, size_t len,
			      uint64_t daddr, const struct xfmt_geom *g,
			      const struct xprob_sink *sink)
{
	struct xfmt_rmt_expect exp;
	uint32_t take;
	unsigned n;

	if (xfmt_rmt_cursor_done(&a->cur))
		return 0;
	take = xfmt_rmt_cursor_next(&a->cur, daddr, xfmt_symlink_buf_space(len, a->cur.v5), &exp);
	n = xfmt_symlink_rmt_verify(buf, len, g, &exp, sink);
	if (take)
		memcpy(a->target + a->cur.have, buf + xfmt_symlink_payload_off(a->cur.v5), take);
	xfmt_rmt_cursor_advance(&a->cur, take, n);
	return n;
}

unsigned xfmt_symlink_asm_finish(struct xfmt_symlink_asm *a, const struct xprob_sink *sink)
{
	unsigned n = check_size(a->size, sink);

	if (a->cur.have < a->cur.want)
		n += (unsigned)xprob_emit_val(sink, XP_symTargetIncomplete, "core.size", 0,
					      a->cur.want, a->cur.have);
	n += check_nul(a->target, a->cur.have, sink);
	a->cur.findings += n;
	return n;
}

/* -------------------------------------------------------- field table */

#define SLF(n, o, s, k, d) \
	{ .name = (n), .off = (o), .size = (s), .kind = (k), .v5only = 1, .doc = (d) }

const struct xfmt_field xfmt_symlink_hdr_fields[] = {
	SLF("magic", XFMT_RMT_MAGIC_OFF, 4, XFK_HEX, "0x58534c4d \"XSLM\""),
	SLF("offset", XFMT_RMT_OFFSET_OFF, 4, XFK_UINT,
	    "target offset of this buffer's first byte"),
	SLF("bytes", XFMT_RMT_BYTES_OFF, 4, XFK_UINT, "target bytes in this buffer"),
	SLF("crc", XFMT_RMT_CRC_OFF, 4, XFK_CRC, "CRC32c of the whole buffer"),
	SLF("uuid", XFMT_RMT_UUID_OFF, 16, XFK_UUID, "filesystem metadata uuid"),
	SLF("owner", XFMT_RMT_OWNER_OFF, 8, XFK_UINT, "symlink inode number"),
	SLF("bno", XFMT_RMT_BLKNO_OFF, 8, XFK_UINT,
	    "daddr (512-byte sector) where this buffer lives"),
	SLF("lsn", XFMT_RMT_LSN_OFF, 8, XFK_LSN, "log sequence number of the last write"),
	XFMT_FIELD_END
};
