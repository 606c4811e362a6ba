/*
 * agfl.c - AGFL decoding, the active-window helpers, verification and the
 * header field table.
 *
 * The kernel can only check an AGFL loosely when it reads it (xfs_agfl_verify:
 * on v5 every slot must be null or below agblocks) because it does not have
 * the AGF at hand; it validates the window against the AGF later
 * (xfs_agfl_needs_reset) and each block when it takes it off the list.  An
 * offline checker has both sectors, so it checks the active window exactly.
 */
#include "formats/agfl.h"

#include <string.h>

#include "formats/crc32c.h"
#include "formats/endian.h"
#include "formats/sb.h"

enum {
	AGFL_MAGICNUM = 0, AGFL_SEQNO = 4, AGFL_UUID = 8, AGFL_LSN = 24,
	AGFL_CRC = 32, AGFL_END = 36,
};

_Static_assert(AGFL_END == XFS_AGFL_HDR_SIZE, "AGFL header is 36 bytes, packed");
_Static_assert(AGFL_CRC == XFS_AGFL_CRC_OFF, "agfl_crc offset");

/* The largest array: a v4 AGFL in a 32 KiB sector. */
#define AGFL_MAX_SLOTS (32768u / 4u)

int xfmt_agfl_decode(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
		     struct xfmt_agfl *out)
{
	size_t hdr = g->v5 ? XFS_AGFL_HDR_SIZE : 0;

	if (!buf || g->sectsize < 512 || g->sectsize > 32768 || len < g->sectsize)
		return -1;
	memset(out, 0, sizeof(*out));
	if (g->v5) {
		out->magicnum = xfmt_get_be32(buf + AGFL_MAGICNUM);
		out->seqno = xfmt_get_be32(buf + AGFL_SEQNO);
		memcpy(out->uuid, buf + AGFL_UUID, 16);
		out->lsn = xfmt_get_be64(buf + AGFL_LSN);
		out->crc = xfmt_get_le32(buf + AGFL_CRC);
	}
	out->size = (uint32_t)((g->sectsize - hdr) / 4);
	out->slots = buf + hdr;
	return 0;
}

uint32_t xfmt_agfl_slot(const struct xfmt_agfl *agfl, uint32_t i)
{
	if (i >= agfl->size || !agfl->slots)
		return XFS_NULLAGBLOCK;
	return xfmt_get_be32(agfl->slots + (size_t)i * 4);
}

uint32_t xfmt_agfl_active_slot(const struct xfmt_agfl *agfl, const struct xfmt_agf *agf,
			       uint32_t i)
{
	/* Bounded by the array too: a damaged flcount must not loop the window. */
	if (agf->flfirst >= agfl->size || i >= agf->flcount || i >= agfl->size)
		return UINT32_MAX;
	return (uint32_t)(((uint64_t)agf->flfirst + i) % agfl->size);
}

uint32_t xfmt_agfl_active(const struct xfmt_agfl *agfl, const struct xfmt_agf *agf,
			  uint32_t i)
{
	uint32_t slot = xfmt_agfl_active_slot(agfl, agf, i);

	return slot == UINT32_MAX ? XFS_NULLAGBLOCK : xfmt_agfl_slot(agfl, slot);
}

/* ---------------------------------------------------------------- verifier */

/*
 * The old-kernel padding case of xfs_agfl_needs_reset: the window wraps and
 * its extent disagrees with flcount by exactly one slot, because a kernel
 * with an unpacked 40-byte header used one slot fewer.  Other mismatches are
 * plain corruption, reported on the AGF (agfBadFlCount).
 */
static bool padding_mismatch(const struct xfmt_agf *agf, uint32_t size)
{
	uint32_t f = agf->flfirst, l = agf->fllast, c = agf->flcount, active;

	if (f >= size || l >= size || c == 0 || l >= f)
		return false;
	active = size - f + l + 1;
	return active == c + 1 || active + 1 == c;
}

static unsigned check_window(const struct xfmt_agfl *agfl, const struct xfmt_agf *agf,
			     const struct xfmt_geom *g, uint32_t agno,
			     uint8_t *active_map, const struct xprob_sink *sink)
{
	uint32_t aglen = xfmt_geom_ag_length(g, agno);
	uint32_t hdr = xfmt_sb_hdr_blocks(g);
	uint32_t count = agf->flcount < agfl->size ? agf->flcount : agfl->size;
	unsigned n = 0;

	for (uint32_t i = 0; i < count; i++) {
		uint32_t slot = xfmt_agfl_active_slot(agfl, agf, i);
		uint32_t bno = xfmt_agfl_slot(agfl, slot);

		if (slot < AGFL_MAX_SLOTS)
			active_map[slot / 8] |= (uint8_t)(1u << (slot % 8));
		if (bno >= aglen || bno < hdr) {
			n += (unsigned)xprob_emit_obs(sink, XP_agflBadBlock, "bno", slot, bno);
			continue;
		}
		/* Report a repeat once, at its later slot. */
		for (uint32_t j = 0; j < i; j++) {
			if (xfmt_agfl_active(agfl, agf, j) == bno) {
				n += (unsigned)xprob_emit_obs(sink, XP_agflDuplicateBlock, "bno",
							      slot, bno);
				break;
			}
		}
	}
	return n;
}

unsigned xfmt_agfl_verify(const uint8_t *buf, size_t len, const struct xfmt_agfl *agfl,
			  const struct xfmt_agf *agf, const struct xfmt_geom *g,
			  uint32_t agno, const struct xprob_sink *sink)
{
	uint8_t active_map[AGFL_MAX_SLOTS / 8];
	uint32_t size = agfl->size < AGFL_MAX_SLOTS ? agfl->size : AGFL_MAX_SLOTS;
	unsigned n = 0;

	memset(active_map, 0, sizeof(active_map));
	if (g->v5) {
		if (agfl->magicnum != XFS_AGFL_MAGIC)
			n += (unsigned)xprob_emit_val(sink, XP_agflBadMagic, "magicnum",
						      AGFL_MAGICNUM, XFS_AGFL_MAGIC,
						      agfl->magicnum);
		if (agfl->seqno != agno)
			n += (unsigned)xprob_emit_val(sink, XP_agflBadSeqno, "seqno", AGFL_SEQNO,
						      agno, agfl->seqno);
		if (memcmp(agfl->uuid, g->meta_uuid, 16) != 0)
			n += (unsigned)xprob_emit(sink, XP_agflBadUuid, "uuid", AGFL_UUID);
		if (len >= g->sectsize && g->sectsize >= XFS_AGFL_HDR_SIZE) {
			uint32_t want = xfmt_crc32c_excluding(buf, g->sectsize, AGFL_CRC);

			if (want != agfl->crc)
				n += (unsigned)xprob_emit_val(sink, XP_agflBadCrc, "crc", AGFL_CRC,
							      want, agfl->crc);
		}
	}

	if (agf && agf->flfirst < size) {
		n += check_window(agfl, agf, g, agno, active_map, sink);
		if (padding_mismatch(agf, agfl->size))
			n += (unsigned)xprob_emit_val(sink, XP_agflNeedsReset, "flcount", 0,
						      agfl->size, agf->flcount);
	}

	/*
	 * v5 mkfs fills unused slots with null, so the kernel insists on null or
	 * a block below agblocks everywhere; v4 mkfs left garbage there.
	 */
	if (g->v5) {
		for (uint32_t i = 0; i < size; i++) {
			uint32_t bno = xfmt_agfl_slot(agfl, i);

			if (active_map[i / 8] & (1u << (i % 8)))
				continue;
			if (bno != XFS_NULLAGBLOCK && bno >= g->agblocks)
				n += (unsigned)xprob_emit_obs(sink, XP_agflBadBlock, "bno", i, bno);
		}
	}
	return n;
}

/* ---------------------------------------------------------------- fields */

#define F(nm, of, sz, kd, v5, dc) \
	{ .name = (nm), .off = (of), .size = (sz), .kind = (kd), .v5only = (v5), .doc = (dc) }

const struct xfmt_field xfmt_agfl_fields[] = {
	F("magicnum", AGFL_MAGICNUM, 4, XFK_HEX, 1, "magic number 0x5841464C \"XAFL\""),
	F("seqno", AGFL_SEQNO, 4, XFK_NULLABLE, 1, "AG number"),
	F("uuid", AGFL_UUID, 16, XFK_UUID, 1, "metadata UUID of the filesystem"),
	F("lsn", AGFL_LSN, 8, XFK_LSN, 1, "log sequence number of the last write"),
	F("crc", AGFL_CRC, 4, XFK_CRC, 1, "CRC32c of the sector (little-endian)"),
	XFMT_FIELD_END
};

/* ---------------------------------------------------------------- encoder */

int xfmt_agfl_encode(uint8_t *buf, size_t len, const struct xfmt_geom *g, uint32_t agno,
		     uint64_t lsn, const uint32_t *blocks, uint32_t n)
{
	size_t hdr = g->v5 ? XFS_AGFL_HDR_SIZE : 0;
	uint32_t size;

	if (!buf || g->sectsize < 512 || g->sectsize > 32768 || len < g->sectsize)
		return -1;
	size = (uint32_t)((g->sectsize - hdr) / 4);
	if (n > size || (n && !blocks))
		return -1;
	/* All ones: every slot not in the window holds NULLAGBLOCK. */
	memset(buf, 0xFF, g->sectsize);
	if (g->v5) {
		xfmt_put_be32(buf + AGFL_MAGICNUM, XFS_AGFL_MAGIC);
		xfmt_put_be32(buf + AGFL_SEQNO, agno);
		memcpy(buf + AGFL_UUID, g->meta_uuid, 16);
		xfmt_put_be64(buf + AGFL_LSN, lsn);
	}
	for (uint32_t i = 0; i < n; i++)
		xfmt_put_be32(buf + hdr + (size_t)i * 4, blocks[i]);
	if (g->v5)
		xfmt_crc_update(buf, g->sectsize, AGFL_CRC);
	return 0;
}
