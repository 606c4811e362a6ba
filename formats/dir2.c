/*
 * dir2.c - directory address arithmetic, sizes, name and file-type rules,
 * the header check shared by data/block/free blocks, and the directory
 * field tables.  The forms themselves are in dir2_sf.c, dir2_data.c,
 * dir2_leaf.c and dir2_node.c.  Facts: xfs-ondisk.md section 7.
 */
#include "formats/dir2.h"

#include <string.h>

#include "formats/btree.h"
#include "formats/crc32c.h"
#include "formats/dinode.h"
#include "formats/dir2_layout.h"
#include "formats/endian.h"

/* ------------------------------------------------- address arithmetic */

static unsigned dirblk_shift(const struct xfmt_geom *g)
{
	return (unsigned)g->blocklog + g->dirblklog;
}

uint32_t xfmt_dir2_db_off_to_dataptr(const struct xfmt_geom *g, uint32_t db, uint32_t off)
{
	uint64_t byte = ((uint64_t)db << dirblk_shift(g)) + off;

	return (uint32_t)(byte >> 3);
}

uint32_t xfmt_dir2_dataptr_to_db(const struct xfmt_geom *g, uint32_t addr)
{
	return (uint32_t)(((uint64_t)addr << 3) >> dirblk_shift(g));
}

uint32_t xfmt_dir2_dataptr_to_off(const struct xfmt_geom *g, uint32_t addr)
{
	return (uint32_t)(((uint64_t)addr << 3) & (g->dirblksize - 1u));
}

uint64_t xfmt_dir2_db_to_byte(const struct xfmt_geom *g, uint32_t db)
{
	return (uint64_t)db << dirblk_shift(g);
}

uint32_t xfmt_dir2_byte_to_db(const struct xfmt_geom *g, uint64_t byte)
{
	return (uint32_t)(byte >> dirblk_shift(g));
}

uint64_t xfmt_dir2_byte_to_da(const struct xfmt_geom *g, uint64_t byte)
{
	return byte >> g->blocklog;
}

uint32_t xfmt_dir2_db_to_da(const struct xfmt_geom *g, uint32_t db)
{
	return (uint32_t)((uint64_t)db << g->dirblklog);
}

uint32_t xfmt_dir2_da_to_db(const struct xfmt_geom *g, uint32_t da)
{
	return da >> g->dirblklog;
}

uint32_t xfmt_dir2_leaf_firstda(const struct xfmt_geom *g)
{
	return (uint32_t)xfmt_dir2_byte_to_da(g, XFS_DIR2_LEAF_OFFSET);
}

uint32_t xfmt_dir2_free_firstda(const struct xfmt_geom *g)
{
	return (uint32_t)xfmt_dir2_byte_to_da(g, XFS_DIR2_FREE_OFFSET);
}

uint32_t xfmt_dir2_free_firstdb(const struct xfmt_geom *g, uint32_t fbno_da)
{
	uint32_t db = xfmt_dir2_da_to_db(g, fbno_da);
	uint32_t first = xfmt_dir2_byte_to_db(g, XFS_DIR2_FREE_OFFSET);

	/* Below the free segment there is no answer; callers flag that block. */
	if (db < first)
		return 0;
	return (uint32_t)((uint64_t)(db - first) * xfmt_dir2_free_max_bests(g));
}

void xfmt_dir2_da_expect_init(struct xfmt_da_expect *exp, const struct xfmt_geom *g,
			      uint64_t ino, uint32_t dablk, uint64_t daddr)
{
	memset(exp, 0, sizeof(*exp));
	exp->daddr = daddr;
	exp->owner = ino;
	exp->dablk = dablk;
	exp->level = -1;
	exp->blk_lo = xfmt_dir2_leaf_firstda(g);
	exp->blk_hi = xfmt_dir2_free_firstda(g);
}

/* --------------------------------------------------------- sizes, names */

size_t xfmt_dir2_data_hdr_len(const struct xfmt_geom *g)
{
	return g->v5 ? XFMT_DIR3_DATA_HDR : XFMT_DIR2_DATA_HDR;
}

size_t xfmt_dir2_data_entsize(const struct xfmt_geom *g, unsigned namelen)
{
	/* be64 inumber, u8 namelen, name, [u8 ftype], be16 tag, rounded to 8. */
	size_t sz = 8 + 1 + (size_t)namelen + (xfmt_geom_has_ftype(g) ? 1 : 0) + 2;

	return (sz + XFS_DIR2_DATA_ALIGN - 1) & ~(size_t)(XFS_DIR2_DATA_ALIGN - 1);
}

size_t xfmt_dir2_data_first_offset(const struct xfmt_geom *g)
{
	return xfmt_dir2_data_hdr_len(g) + xfmt_dir2_data_entsize(g, 1) +
	       xfmt_dir2_data_entsize(g, 2);
}

unsigned xfmt_dir2_leaf_max_ents(const struct xfmt_geom *g)
{
	size_t hdr = g->v5 ? XFMT_DIR3_LEAF_HDR : XFMT_DIR2_LEAF_HDR;

	if (g->dirblksize <= hdr)
		return 0;
	return (unsigned)((g->dirblksize - hdr) / XFMT_DIR2_LEAF_ENTRY);
}

unsigned xfmt_dir2_free_max_bests(const struct xfmt_geom *g)
{
	size_t hdr = g->v5 ? XFMT_DIR3_FREE_HDR : XFMT_DIR2_FREE_HDR;

	if (g->dirblksize <= hdr)
		return 0;
	return (unsigned)((g->dirblksize - hdr) / 2);
}

unsigned xfmt_dir2_block_max_leaf(const struct xfmt_geom *g)
{
	size_t hdr = xfmt_dir2_data_hdr_len(g);

	if (g->dirblksize <= hdr + XFMT_DIR2_BLOCK_TAIL)
		return 0;
	return (unsigned)((g->dirblksize - XFMT_DIR2_BLOCK_TAIL - hdr) / XFMT_DIR2_LEAF_ENTRY);
}

bool xfmt_dir2_name_ok(const uint8_t *name, size_t len)
{
	if (len == 0 || len > XFMT_DIR_MAXNAMELEN)
		return false;
	return memchr(name, '/', len) == NULL && memchr(name, 0, len) == NULL;
}

int xfmt_dir2_name_dots(const uint8_t *name, size_t len)
{
	if (len == 1 && name[0] == '.')
		return 1;
	if (len == 2 && name[0] == '.' && name[1] == '.')
		return 2;
	return 0;
}

bool xfmt_dir2_ino_ok(const struct xfmt_geom *g, uint64_t ino)
{
	uint32_t agino;

	if (!xfmt_geom_ino_valid(g, ino))
		return false;
	/* No inode chunk can sit on the AG headers (the kernel's xfs_verify_agino). */
	agino = xfmt_geom_ino_agino(g, ino);
	return xfmt_geom_agino_agbno(g, agino) > xfmt_bt_agfl_block(g);
}

uint8_t xfmt_dir3_ftype_from_mode(uint16_t mode)
{
	switch (mode & XFMT_S_IFMT) {
	case XFMT_S_IFREG:  return XFS_DIR3_FT_REG_FILE;
	case XFMT_S_IFDIR:  return XFS_DIR3_FT_DIR;
	case XFMT_S_IFCHR:  return XFS_DIR3_FT_CHRDEV;
	case XFMT_S_IFBLK:  return XFS_DIR3_FT_BLKDEV;
	case XFMT_S_IFIFO:  return XFS_DIR3_FT_FIFO;
	case XFMT_S_IFSOCK: return XFS_DIR3_FT_SOCK;
	case XFMT_S_IFLNK:  return XFS_DIR3_FT_SYMLINK;
	default:            return XFS_DIR3_FT_UNKNOWN;
	}
}

const char *xfmt_dir3_ftype_name(uint8_t ftype)
{
	static const char *const names[XFS_DIR3_FT_MAX] = {
		"unknown", "regular", "directory", "chardev", "blkdev",
		"fifo", "socket", "symlink", "whiteout",
	};

	return ftype < XFS_DIR3_FT_MAX ? names[ftype] : "invalid";
}

/* ------------------------------------------------ shared header check */

unsigned xfmt_dir3_blkhdr_verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
				 uint32_t want_magic, const struct xfmt_da_expect *exp,
				 const struct xprob_sink *sink)
{
	unsigned n = 0;
	uint32_t magic;

	if (len < g->dirblksize || g->dirblksize < XFMT_DIR3_DATA_HDR)
		return (unsigned)xprob_emit_val(sink, XP_daTruncated, NULL, 0,
						g->dirblksize, len);
	magic = xfmt_get_be32(buf + BH_MAGIC);
	if (magic != want_magic)
		n += (unsigned)xprob_emit_val(sink, XP_daBadMagic, "magic", BH_MAGIC,
					      want_magic, magic);
	if (g->v5) {
		uint32_t want = xfmt_crc32c_excluding(buf, g->dirblksize, BH_CRC);
		uint32_t crc = xfmt_get_le32(buf + BH_CRC);
		uint64_t blkno = xfmt_get_be64(buf + BH_BLKNO);
		uint64_t owner = xfmt_get_be64(buf + BH_OWNER);

		/* The CRC is its own finding: the contents may still be right. */
		if (crc != want)
			n += (unsigned)xprob_emit_val(sink, XP_daBadCrc, "crc", BH_CRC, want, crc);
		if (blkno != exp->daddr)
			n += (unsigned)xprob_emit_val(sink, XP_daBadBlkno, "bno", BH_BLKNO,
						      exp->daddr, blkno);
		if (memcmp(buf + BH_UUID, g->meta_uuid, 16) != 0)
			n += (unsigned)xprob_emit(sink, XP_daBadUuid, "uuid", BH_UUID);
		if (owner != exp->owner)
			n += (unsigned)xprob_emit_val(sink, XP_daBadOwner, "owner", BH_OWNER,
						      exp->owner, owner);
	}
	return n;
}

/* --------------------------------------------------------- field tables */

#define DF(name, off, size, kind, v5only, doc) { name, off, size, kind, v5only, doc, 0 }

#define DIR3_HDR_FIELDS(p, what) \
	DF(p ".hdr.magic", BH_MAGIC, 4, XFK_HEX, 0, what), \
	DF(p ".hdr.crc", BH_CRC, 4, XFK_CRC, 1, "CRC32c of the whole directory block"), \
	DF(p ".hdr.bno", BH_BLKNO, 8, XFK_UINT, 1, "daddr (512-byte sector) where this block lives"), \
	DF(p ".hdr.lsn", BH_LSN, 8, XFK_LSN, 1, "log sequence number of the last write"), \
	DF(p ".hdr.uuid", BH_UUID, 16, XFK_UUID, 1, "filesystem metadata uuid"), \
	DF(p ".hdr.owner", BH_OWNER, 8, XFK_UINT, 1, "directory inode that owns this block")

#define BESTFREE_FIELDS(p, base) \
	DF(p ".bestfree[0].offset", (base), 2, XFK_HEX, 0, "largest unused region: byte offset (0 = none)"), \
	DF(p ".bestfree[0].length", (base) + 2, 2, XFK_HEX, 0, "largest unused region: length"), \
	DF(p ".bestfree[1].offset", (base) + 4, 2, XFK_HEX, 0, "second largest unused region: offset"), \
	DF(p ".bestfree[1].length", (base) + 6, 2, XFK_HEX, 0, "second largest unused region: length"), \
	DF(p ".bestfree[2].offset", (base) + 8, 2, XFK_HEX, 0, "third largest unused region: offset"), \
	DF(p ".bestfree[2].length", (base) + 10, 2, XFK_HEX, 0, "third largest unused region: length")

const struct xfmt_field xfmt_dir3_block_hdr_fields[] = {
	DIR3_HDR_FIELDS("bhdr", "0x58444233 (XDB3): single-block directory"),
	BESTFREE_FIELDS("bhdr", BH_END),
	XFMT_FIELD_END
};

const struct xfmt_field xfmt_dir3_data_hdr_fields[] = {
	DIR3_HDR_FIELDS("dhdr", "0x58444433 (XDD3): directory data block"),
	BESTFREE_FIELDS("dhdr", BH_END),
	XFMT_FIELD_END
};

const struct xfmt_field xfmt_dir2_block_hdr_fields[] = {
	DF("bhdr.magic", BH_MAGIC, 4, XFK_HEX, 0, "0x58443242 (XD2B): v4 single-block directory"),
	BESTFREE_FIELDS("bhdr", 4),
	XFMT_FIELD_END
};

const struct xfmt_field xfmt_dir2_data_hdr_fields[] = {
	DF("dhdr.magic", BH_MAGIC, 4, XFK_HEX, 0, "0x58443244 (XD2D): v4 directory data block"),
	BESTFREE_FIELDS("dhdr", 4),
	XFMT_FIELD_END
};

const struct xfmt_field *xfmt_dir2_data_fields(bool v5, bool block_form)
{
	if (v5)
		return block_form ? xfmt_dir3_block_hdr_fields : xfmt_dir3_data_hdr_fields;
	return block_form ? xfmt_dir2_block_hdr_fields : xfmt_dir2_data_hdr_fields;
}

/* Leaf header: blkinfo (danode.h layout), then count, stale (and v5 pad). */
const struct xfmt_field xfmt_dir3_leaf_hdr_fields[] = {
	DF("lhdr.info.hdr.forw", 0, 4, XFK_UINT, 0, "next leafN block (fork block, 0 = none)"),
	DF("lhdr.info.hdr.back", 4, 4, XFK_UINT, 0, "previous leafN block (0 = none)"),
	DF("lhdr.info.hdr.magic", 8, 2, XFK_HEX, 0, "0x3df1 leaf1 (leaf form) or 0x3dff leafN (node form)"),
	DF("lhdr.info.crc", 12, 4, XFK_CRC, 1, "CRC32c of the whole directory block"),
	DF("lhdr.info.bno", 16, 8, XFK_UINT, 1, "daddr (512-byte sector) where this block lives"),
	DF("lhdr.info.lsn", 24, 8, XFK_LSN, 1, "log sequence number of the last write"),
	DF("lhdr.info.uuid", 32, 16, XFK_UUID, 1, "filesystem metadata uuid"),
	DF("lhdr.info.owner", 48, 8, XFK_UINT, 1, "directory inode that owns this block"),
	DF("lhdr.count", 56, 2, XFK_UINT, 0, "leaf entries {hashval, address}, stale ones included"),
	DF("lhdr.stale", 58, 2, XFK_UINT, 0, "entries whose address is 0 (removed names)"),
	XFMT_FIELD_END
};

const struct xfmt_field xfmt_dir2_leaf_hdr_fields[] = {
	DF("lhdr.info.forw", 0, 4, XFK_UINT, 0, "next leafN block (fork block, 0 = none)"),
	DF("lhdr.info.back", 4, 4, XFK_UINT, 0, "previous leafN block (0 = none)"),
	DF("lhdr.info.magic", 8, 2, XFK_HEX, 0, "0xd2f1 leaf1 (leaf form) or 0xd2ff leafN (node form)"),
	DF("lhdr.count", 12, 2, XFK_UINT, 0, "leaf entries {hashval, address}, stale ones included"),
	DF("lhdr.stale", 14, 2, XFK_UINT, 0, "entries whose address is 0 (removed names)"),
	XFMT_FIELD_END
};

const struct xfmt_field *xfmt_dir2_leaf_fields(bool v5)
{
	return v5 ? xfmt_dir3_leaf_hdr_fields : xfmt_dir2_leaf_hdr_fields;
}

const struct xfmt_field xfmt_dir3_free_hdr_fields[] = {
	DIR3_HDR_FIELDS("fhdr", "0x58444633 (XDF3): free-index block"),
	DF("fhdr.firstdb", 48, 4, XFK_UINT, 0, "first data block whose free space this block records"),
	DF("fhdr.nvalid", 52, 4, XFK_UINT, 0, "bests[] slots in use"),
	DF("fhdr.nused", 56, 4, XFK_UINT, 0, "slots naming an existing data block"),
	XFMT_FIELD_END
};

const struct xfmt_field xfmt_dir2_free_hdr_fields[] = {
	DF("fhdr.magic", 0, 4, XFK_HEX, 0, "0x58443246 (XD2F): v4 free-index block"),
	DF("fhdr.firstdb", 4, 4, XFK_UINT, 0, "first data block whose free space this block records"),
	DF("fhdr.nvalid", 8, 4, XFK_UINT, 0, "bests[] slots in use"),
	DF("fhdr.nused", 12, 4, XFK_UINT, 0, "slots naming an existing data block"),
	XFMT_FIELD_END
};

const struct xfmt_field *xfmt_dir2_free_fields(bool v5)
{
	return v5 ? xfmt_dir3_free_hdr_fields : xfmt_dir2_free_hdr_fields;
}

const struct xfmt_field xfmt_dir2_block_tail_fields[] = {
	DF("btail.count", 0, 4, XFK_UINT, 0, "leaf entries before the tail, stale ones included"),
	DF("btail.stale", 4, 4, XFK_UINT, 0, "leaf entries whose address is 0"),
	XFMT_FIELD_END
};

const struct xfmt_field xfmt_dir2_leaf_tail_fields[] = {
	DF("ltail.bestcount", 0, 4, XFK_UINT, 0, "data blocks with a bests[] slot before the tail"),
	XFMT_FIELD_END
};

#define SF_HDR_FIELDS(p, width, pname) \
	DF(p ".hdr.count", 0, 1, XFK_UINT, 0, "entries (\".\" and \"..\" are not stored)"), \
	DF(p ".hdr.i8count", 1, 1, XFK_UINT, 0, "inode numbers above 2^32-1; nonzero = 8-byte numbers"), \
	DF(p ".hdr.parent." pname, 2, width, XFK_UINT, 0, "\"..\": the parent directory's inode")

static const struct xfmt_field sf_u3_3_4[] = { SF_HDR_FIELDS("u3.sfdir3", 4, "i4"), XFMT_FIELD_END };
static const struct xfmt_field sf_u3_3_8[] = { SF_HDR_FIELDS("u3.sfdir3", 8, "i8"), XFMT_FIELD_END };
static const struct xfmt_field sf_u3_2_4[] = { SF_HDR_FIELDS("u3.sfdir2", 4, "i4"), XFMT_FIELD_END };
static const struct xfmt_field sf_u3_2_8[] = { SF_HDR_FIELDS("u3.sfdir2", 8, "i8"), XFMT_FIELD_END };
static const struct xfmt_field sf_u_3_4[] = { SF_HDR_FIELDS("u.sfdir3", 4, "i4"), XFMT_FIELD_END };
static const struct xfmt_field sf_u_3_8[] = { SF_HDR_FIELDS("u.sfdir3", 8, "i8"), XFMT_FIELD_END };
static const struct xfmt_field sf_u_2_4[] = { SF_HDR_FIELDS("u.sfdir2", 4, "i4"), XFMT_FIELD_END };
static const struct xfmt_field sf_u_2_8[] = { SF_HDR_FIELDS("u.sfdir2", 8, "i8"), XFMT_FIELD_END };

const struct xfmt_field *xfmt_dir2_sf_hdr_fields(bool v5, bool ftype, bool i8)
{
	if (v5)
		return ftype ? (i8 ? sf_u3_3_8 : sf_u3_3_4) : (i8 ? sf_u3_2_8 : sf_u3_2_4);
	return ftype ? (i8 ? sf_u_3_8 : sf_u_3_4) : (i8 ? sf_u_2_8 : sf_u_2_4);
}
