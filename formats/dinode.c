/*
 * dinode.c - decoding and verification of XFS inode cores, fork geometry,
 * timestamps and the inode field tables.  Rules: the kernel's
 * xfs_dinode_verify, xfs_dinode_verify_fork, xfs_inode_validate_extsize /
 * _cowextsize and the bmbt-root checks of xfs_iformat_btree, reported one
 * finding per failed rule.
 */
#include "formats/dinode.h"

#include <string.h>

#include "formats/bmap.h"
#include "formats/btree.h"
#include "formats/btrec.h"
#include "formats/crc32c.h"
#include "formats/dinode_layout.h"
#include "formats/dir2.h"
#include "formats/endian.h"

_Static_assert(DI_NEXT_UNLINKED + 4 == XFMT_DINODE_V2_CORE, "v2 core is 100 bytes");
_Static_assert(DI_UUID + 16 == XFMT_DINODE_V3_CORE, "v3 core is 176 bytes");
_Static_assert(DI_CRC == XFMT_DINODE_CRC_OFF, "inode crc offset");
_Static_assert(DI_CRTIME - DI_PAD2 == 12, "di_pad2 is 12 bytes");

#define NSEC_PER_SEC 1000000000u
/* Directory address space: 3 segments of 32 GiB (XFS_DIR2_MAX_SPACES * SPACE_SIZE). */
#define DIR_SPACE_BYTES (3ull << 35)
/* Longest symlink target (XFS_SYMLINK_MAXLEN). */
#define XFMT_SYMLINK_MAXLEN 1024u
/* Largest extent length, blocks (also bounds the size hints). */
#define MAX_BMBT_EXTLEN XFS_BMBT_BLOCKCOUNT_MASK

void xfmt_timestamp_decode(const uint8_t *p, bool bigtime, struct xfmt_timestamp *out)
{
	if (bigtime) {
		uint64_t v = xfmt_get_be64(p);

		out->sec = (int64_t)(v / NSEC_PER_SEC) - XFMT_BIGTIME_EPOCH_OFFSET;
		out->nsec = (uint32_t)(v % NSEC_PER_SEC);
	} else {
		out->sec = (int32_t)xfmt_get_be32(p);
		out->nsec = xfmt_get_be32(p + 4);
	}
}

/*
 * Whether the extent records n.. of a data fork at lit that the fork's
 * first fo bytes cannot hold are there all the same: each maps blocks (a
 * record of the empty attr fork's zeros maps none), so the count is right
 * and the forkoff that cut them off is wrong.
 */
static bool records_past_fork(const uint8_t *lit, size_t fo, uint64_t n)
{
	for (uint64_t i = fo / XFMT_BMBT_REC_LEN; i < n; i++)
		if ((xfmt_get_be64(lit + i * XFMT_BMBT_REC_LEN + 8) & 0x1FFFFFu) == 0)
			return false;
	return true;
}

int xfmt_dinode_decode(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
		       struct xfmt_dinode *out)
{
	size_t core = g->v5 ? XFMT_DINODE_V3_CORE : XFMT_DINODE_V2_CORE;
	size_t fo;

	memset(out, 0, sizeof(*out));
	if (len < core)
		return -1;

	out->magic = xfmt_get_be16(buf + DI_MAGIC);
	out->mode = xfmt_get_be16(buf + DI_MODE);
	out->version = buf[DI_VERSION];
	out->format = buf[DI_FORMAT];
	out->onlink = xfmt_get_be16(buf + DI_ONLINK);
	out->uid = xfmt_get_be32(buf + DI_UID);
	out->gid = xfmt_get_be32(buf + DI_GID);
	out->nlink = xfmt_get_be32(buf + DI_NLINK);
	out->projid = (uint32_t)xfmt_get_be16(buf + DI_PROJID_HI) << 16 |
		      xfmt_get_be16(buf + DI_PROJID_LO);
	out->size = xfmt_get_be64(buf + DI_SIZE);
	out->nblocks = xfmt_get_be64(buf + DI_NBLOCKS);
	out->extsize = xfmt_get_be32(buf + DI_EXTSIZE);
	out->forkoff = buf[DI_FORKOFF];
	out->aformat = buf[DI_AFORMAT];
	out->dmevmask = xfmt_get_be32(buf + DI_DMEVMASK);
	out->dmstate = xfmt_get_be16(buf + DI_DMSTATE);
	out->flags = xfmt_get_be16(buf + DI_FLAGS);
	out->gen = xfmt_get_be32(buf + DI_GEN);
	out->next_unlinked = xfmt_get_be32(buf + DI_NEXT_UNLINKED);

	/*
	 * A v5 filesystem has v3 cores only: decode the v3 fields even when the
	 * version byte is damaged (the verifier reports that), so one bad byte
	 * does not change how everything else is read.  flags2 selects the
	 * extent-counter and timestamp layouts.
	 */
	if (g->v5) {
		out->crc = xfmt_get_le32(buf + DI_CRC);
		out->changecount = xfmt_get_be64(buf + DI_CHANGECOUNT);
		out->lsn = xfmt_get_be64(buf + DI_LSN);
		out->flags2 = xfmt_get_be64(buf + DI_FLAGS2);
		out->cowextsize = xfmt_get_be32(buf + DI_COWEXTSIZE);
		out->ino = xfmt_get_be64(buf + DI_INO);
		memcpy(out->uuid, buf + DI_UUID, 16);
		out->bigtime = (out->flags2 & XFS_DIFLAG2_BIGTIME) != 0;
		/* The large counter layout only where the filesystem has it:
		 * no kernel writes it elsewhere, so a stray flag is the fault
		 * (reported by the verifier) and the counters are where the
		 * filesystem keeps them. */
		out->nrext64 = (out->flags2 & XFS_DIFLAG2_NREXT64) && xfmt_geom_has_nrext64(g);
	} else {
		out->flushiter = xfmt_get_be16(buf + DI_FLUSHITER);
	}

	if (out->nrext64) {
		out->nextents = xfmt_get_be64(buf + DI_BIG_NEXTENTS);
		out->anextents = xfmt_get_be32(buf + DI_NEXTENTS);
	} else {
		out->nextents = xfmt_get_be32(buf + DI_NEXTENTS);
		out->anextents = xfmt_get_be16(buf + DI_ANEXTENTS);
	}

	xfmt_timestamp_decode(buf + DI_ATIME, out->bigtime, &out->atime);
	xfmt_timestamp_decode(buf + DI_MTIME, out->bigtime, &out->mtime);
	xfmt_timestamp_decode(buf + DI_CTIME, out->bigtime, &out->ctime);
	if (g->v5)
		xfmt_timestamp_decode(buf + DI_CRTIME, out->bigtime, &out->crtime);

	/* Fork geometry, clamped so a hostile forkoff stays inside the inode. */
	out->core_size = core;
	out->lit_off = core;
	out->lit_size = len - core;
	out->dfork_off = core;
	out->has_attr_fork = out->forkoff != 0;
	if (out->has_attr_fork) {
		fo = (size_t)out->forkoff << 3;
		if (fo > out->lit_size)
			fo = out->lit_size;
		if (out->format == XFS_DINODE_FMT_EXTENTS && out->aformat == XFS_DINODE_FMT_EXTENTS &&
		    out->anextents == 0 && out->nextents > fo / XFMT_BMBT_REC_LEN &&
		    out->nextents <= out->lit_size / XFMT_BMBT_REC_LEN &&
		    records_past_fork(buf + core, fo, out->nextents)) {
			out->stray_forkoff = true;
			out->has_attr_fork = false;
			out->dfork_size = out->lit_size;
			return 0;
		}
		out->dfork_size = fo;
		out->afork_off = core + fo;
		out->afork_size = out->lit_size - fo;
	} else {
		out->dfork_size = out->lit_size;
	}
	return 0;
}

bool xfmt_dinode_in_use(const struct xfmt_dinode *d)
{
	return d->mode != 0;
}

bool xfmt_dinode_at_place(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			  uint64_t ino)
{
	if (len < (g->v5 ? DI_UUID + 16u : DI_FORMAT + 1u) ||
	    xfmt_get_be16(buf + DI_MAGIC) != XFS_DINODE_MAGIC)
		return false;
	if (g->v5)
		return buf[DI_VERSION] == 3 && xfmt_get_be64(buf + DI_INO) == ino &&
		       memcmp(buf + DI_UUID, g->meta_uuid, 16) == 0;
	return (buf[DI_VERSION] == 1 || buf[DI_VERSION] == 2) &&
	       buf[DI_FORMAT] <= XFS_DINODE_FMT_UUID;
}

const uint8_t *xfmt_dinode_fork(const uint8_t *buf, const struct xfmt_dinode *d,
				int whichfork, size_t *size)
{
	if (whichfork == 0) {
		*size = d->dfork_size;
		return buf + d->dfork_off;
	}
	if (!d->has_attr_fork || d->afork_size == 0) {
		*size = 0;
		return NULL;
	}
	*size = d->afork_size;
	return buf + d->afork_off;
}

/* ------------------------------------------------------------- verify */

static bool mode_type_valid(uint16_t mode)
{
	switch (mode & XFMT_S_IFMT) {
	case XFMT_S_IFIFO: case XFMT_S_IFCHR: case XFMT_S_IFDIR: case XFMT_S_IFBLK:
	case XFMT_S_IFREG: case XFMT_S_IFLNK: case XFMT_S_IFSOCK:
		return true;
	default:
		return false;
	}
}

/* Checks of one fork's format and extent count (xfs_dinode_verify_fork). */
static unsigned verify_fork(const uint8_t *buf, const struct xfmt_dinode *d,
			    const struct xfmt_geom *g, int whichfork,
			    const struct xprob_sink *sink)
{
	bool data = whichfork == 0;
	uint16_t type = d->mode & XFMT_S_IFMT;
	unsigned fmt = data ? d->format : d->aformat;
	uint64_t nexts = data ? d->nextents : d->anextents;
	const char *fmt_name = data ? "core.format" : "core.aformat";
	const char *cnt_name = data ? "core.nextents" : "core.naextents";
	size_t fmt_off = data ? DI_FORMAT : DI_AFORMAT;
	size_t cnt_off = data ? (d->nrext64 ? DI_BIG_NEXTENTS : DI_NEXTENTS)
			      : (d->nrext64 ? DI_NEXTENTS : DI_ANEXTENTS);
	size_t fsize;
	const uint8_t *fork = xfmt_dinode_fork(buf, d, whichfork, &fsize);
	uint64_t maxext = fsize / 16u, limit;
	size_t fork_off = data ? d->dfork_off : d->afork_off;
	/* xfs_db's names for the bmbt root: u3.* (v3), u.* (v2), a.* (attr). */
	bool v3 = d->core_size == XFMT_DINODE_V3_CORE;
	const char *root_level = !data ? "a.bmbt.level" :
				 v3 ? "u3.bmbt.level" : "u.bmbt.level";
	const char *root_numrecs = !data ? "a.bmbt.numrecs" :
				   v3 ? "u3.bmbt.numrecs" : "u.bmbt.numrecs";
	bool fmt_bad = false;
	unsigned n = 0;

	if (data) {
		/* Small directories live in the inode; truncated ones have size 0. */
		if (type == XFMT_S_IFDIR && d->size && d->size <= fsize &&
		    fmt != XFS_DINODE_FMT_LOCAL)
			fmt_bad = true;
		/* Short symlinks may be EXTENTS after an xattr came and went. */
		if (type == XFMT_S_IFLNK && d->size <= fsize &&
		    fmt != XFS_DINODE_FMT_EXTENTS && fmt != XFS_DINODE_FMT_LOCAL)
			fmt_bad = true;
		/*
		 * Inline data longer than the fork, or a symlink target longer
		 * than any symlink: the size is what cannot be (xfs_repair's
		 * view), reported once.
		 */
		if ((d->size > fsize && fmt == XFS_DINODE_FMT_LOCAL) ||
		    (type == XFMT_S_IFLNK && d->size > XFMT_SYMLINK_MAXLEN))
			n += (unsigned)xprob_emit_obs(sink, XP_inoBadSize, "core.size", DI_SIZE,
						      d->size);
	}

	switch (fmt) {
	case XFS_DINODE_FMT_LOCAL:
		if (data && type == XFMT_S_IFREG)
			fmt_bad = true;
		/* (expected 0: the count alone is wrong, the fork is not) */
		if (nexts)
			n += (unsigned)xprob_emit_val(sink, XP_inoBadNextents, cnt_name,
						      cnt_off, 0, nexts);
		break;
	case XFS_DINODE_FMT_EXTENTS:
		if (nexts > maxext) {
			/* The sound records at the fork's start say what the count was. */
			struct xfmt_bmap_fork bf;
			size_t sound;

			xfmt_bmap_fork_init(&bf, g, d, whichfork);
			sound = xfmt_bmap_extents_sound_prefix(fork, fsize, &bf, g);

			if (sound)
				n += (unsigned)xprob_emit_val(sink, XP_inoBadNextents, cnt_name,
							      cnt_off, sound, nexts);
			else
				n += (unsigned)xprob_emit_obs(sink, XP_inoBadNextents, cnt_name,
							      cnt_off, nexts);
		}
		break;
	case XFS_DINODE_FMT_BTREE: {
		uint16_t level = 0, numrecs = 0;

		if (data)
			limit = d->nrext64 ? XFS_MAX_EXTCNT_DATA_FORK_LARGE
					   : XFS_MAX_EXTCNT_DATA_FORK_SMALL;
		else
			limit = d->nrext64 ? XFS_MAX_EXTCNT_ATTR_FORK_LARGE
					   : XFS_MAX_EXTCNT_ATTR_FORK_SMALL;
		/* A btree fork holds more extents than the fork could list inline. */
		if (nexts > limit || nexts <= maxext)
			n += (unsigned)xprob_emit_obs(sink, XP_inoBadNextents, cnt_name,
						      cnt_off, nexts);
		if (!fork || xfmt_bmdr_decode(fork, fsize, &level, &numrecs) < 0) {
			n += (unsigned)xprob_emit_obs(sink, XP_inoBadBmdrRoot, root_level,
						      fork_off, fsize);
			break;
		}
		if (level == 0 || level >= XFS_BTREE_MAXLEVELS)
			n += (unsigned)xprob_emit_obs(sink, XP_inoBadBmdrRoot, root_level,
						      fork_off, level);
		if (numrecs == 0 || numrecs > xfmt_bmdr_maxrecs(fsize))
			n += (unsigned)xprob_emit_obs(sink, XP_inoBadBmdrRoot, root_numrecs,
						      fork_off + 2, numrecs);
		break;
	}
	default:
		/* DEV is only for device inodes, which never come here. */
		fmt_bad = true;
		break;
	}
	if (fmt_bad)
		n += (unsigned)xprob_emit_obs(sink, XP_inoBadFormat, fmt_name, fmt_off, fmt);
	return n;
}

uint16_t xfmt_dinode_flags_allowed(const struct xfmt_geom *g, uint64_t ino, uint16_t mode)
{
	uint16_t type = mode & XFMT_S_IFMT, ok = XFS_DIFLAG_ANY;

	if (type == 0)
		return ok;  /* a free inode's flags mean nothing */
	/* (the extent size hint flags are verify_extsize's) */
	if (type != XFMT_S_IFDIR)
		ok &= (uint16_t)~(XFS_DIFLAG_RTINHERIT | XFS_DIFLAG_PROJINHERIT |
				  XFS_DIFLAG_NOSYMLINKS);
	/* realtime data needs a regular file and a realtime section */
	if (type != XFMT_S_IFREG || g->rblocks == 0)
		ok &= (uint16_t)~XFS_DIFLAG_REALTIME;
	/* Only the realtime bitmap inode carries NEWRTBM: judged where the
	 * superblock names one, and under a metadata directory tree (whose
	 * superblock names none) wherever there is no realtime section. */
	if (type != XFMT_S_IFREG ||
	    (g->rbmino && g->rbmino != XFS_NULLFSINO && ino != g->rbmino) ||
	    (xfmt_geom_has_metadir(g) && g->rblocks == 0))
		ok &= (uint16_t)~XFS_DIFLAG_NEWRTBM;
	return ok;
}

/* What the kernel wants of every metadata file (xfs_dinode_verify_metadir):
 * the metafile flags, no permissions, owner, group and DMAPI state zero.
 * (The project id holds a realtime group's number on its files.) */
static unsigned verify_metafile(const struct xfmt_dinode *d, const struct xprob_sink *sink)
{
	uint16_t want = xfmt_dinode_metafile_flags(d->mode);
	unsigned n = 0;

	if ((d->flags & want) != want)
		n += (unsigned)xprob_emit_val(sink, XP_inoBadMetafile, "core.flags", DI_FLAGS,
					      d->flags | want, d->flags);
	if (d->mode & 07777)
		n += (unsigned)xprob_emit_val(sink, XP_inoBadMetafile, "core.mode", DI_MODE,
					      d->mode & ~07777u, d->mode);
	if (d->uid)
		n += (unsigned)xprob_emit_val(sink, XP_inoBadMetafile, "core.uid", DI_UID, 0, d->uid);
	if (d->gid)
		n += (unsigned)xprob_emit_val(sink, XP_inoBadMetafile, "core.gid", DI_GID, 0, d->gid);
	if (d->dmevmask)
		n += (unsigned)xprob_emit_val(sink, XP_inoBadMetafile, "core.dmevmask", DI_DMEVMASK,
					      0, d->dmevmask);
	if (d->dmstate)
		n += (unsigned)xprob_emit_val(sink, XP_inoBadMetafile, "core.dmstate", DI_DMSTATE,
					      0, d->dmstate);
	return n;
}

/* Extent size hint (xfs_inode_validate_extsize); rt files skip the rt checks. */
static unsigned verify_extsize(const struct xfmt_geom *g, const struct xfmt_dinode *d,
			       const struct xprob_sink *sink)
{
	uint16_t type = d->mode & XFMT_S_IFMT;
	bool rt = d->flags & XFS_DIFLAG_REALTIME;
	bool hint = d->flags & XFS_DIFLAG_EXTSIZE;
	bool inherit = d->flags & XFS_DIFLAG_EXTSZINHERIT;
	unsigned n = 0;

	if ((hint && type != XFMT_S_IFREG) || (inherit && type != XFMT_S_IFDIR))
		n += (unsigned)xprob_emit_obs(sink, XP_inoBadFlags, "core.flags", DI_FLAGS,
					      d->flags);
	if (((hint || inherit) && d->extsize == 0) ||
	    (!(hint || inherit) && d->extsize != 0) ||
	    d->extsize > MAX_BMBT_EXTLEN ||
	    (!rt && d->extsize > g->agblocks / 2))
		n += (unsigned)xprob_emit_obs(sink, XP_inoBadExtsize, "core.extsize",
					      DI_EXTSIZE, d->extsize);
	return n;
}

/* v3-only flag rules and the CoW extent size hint. */
static unsigned verify_v3_flags(const uint8_t *buf, const struct xfmt_geom *g,
				const struct xfmt_dinode *d, const struct xprob_sink *sink)
{
	uint16_t type = d->mode & XFMT_S_IFMT;
	bool rt = d->flags & XFS_DIFLAG_REALTIME;
	bool reflink = d->flags2 & XFS_DIFLAG2_REFLINK;
	bool cowhint = d->flags2 & XFS_DIFLAG2_COWEXTSIZE;
	unsigned n = 0;

#define BAD_FLAGS2() \
	(n += (unsigned)xprob_emit_obs(sink, XP_inoBadFlags, "v3.flags2", DI_FLAGS2, d->flags2))
	if (d->flags2 & ~XFS_DIFLAG2_ANY)
		BAD_FLAGS2();
	if ((reflink || cowhint) && !xfmt_geom_has_reflink(g))
		BAD_FLAGS2();
	if (reflink && type != XFMT_S_IFREG)
		BAD_FLAGS2();
	if (reflink && rt)
		BAD_FLAGS2();
	if (cowhint && ((type != XFMT_S_IFREG && type != XFMT_S_IFDIR) || rt))
		BAD_FLAGS2();
	if (d->bigtime && !xfmt_geom_has_bigtime(g))
		BAD_FLAGS2();
	if ((d->flags2 & XFS_DIFLAG2_DAX) && type != XFMT_S_IFREG && type != XFMT_S_IFDIR)
		BAD_FLAGS2();
	if ((d->flags2 & XFS_DIFLAG2_NREXT64) && !xfmt_geom_has_nrext64(g))
		BAD_FLAGS2();
	/* a metadata file: only with a metadir tree, a directory or regular
	 * file (xfs_dinode_verify_metadir), never DAX */
	if ((d->flags2 & XFS_DIFLAG2_METADATA) &&
	    (!xfmt_geom_has_metadir(g) || (type != XFMT_S_IFDIR && type != XFMT_S_IFREG) ||
	     (d->flags2 & XFS_DIFLAG2_DAX)))
		BAD_FLAGS2();
#undef BAD_FLAGS2

	if ((cowhint && d->cowextsize == 0) || (!cowhint && d->cowextsize != 0) ||
	    d->cowextsize > MAX_BMBT_EXTLEN || d->cowextsize > g->agblocks / 2)
		n += (unsigned)xprob_emit_obs(sink, XP_inoBadExtsize, "v3.cowextsize",
					      DI_COWEXTSIZE, d->cowextsize);

	/* Padding the kernel always writes as zero. */
	if (d->nrext64) {
		if (xfmt_get_be16(buf + DI_ANEXTENTS) != 0)
			n += (unsigned)xprob_emit_obs(sink, XP_inoNonzeroPad, "core.nrext64_pad",
						      DI_ANEXTENTS, xfmt_get_be16(buf + DI_ANEXTENTS));
	} else if (xfmt_get_be64(buf + DI_BIG_NEXTENTS) != 0) {
		n += (unsigned)xprob_emit_obs(sink, XP_inoNonzeroPad, "core.v3_pad",
					      DI_BIG_NEXTENTS, xfmt_get_be64(buf + DI_BIG_NEXTENTS));
	}
	for (size_t i = DI_PAD2; i < DI_CRTIME; i++) {
		if (buf[i]) {
			n += (unsigned)xprob_emit(sink, XP_inoNonzeroPad, "v3.pad2", DI_PAD2);
			break;
		}
	}
	return n;
}

static unsigned verify_times(const struct xfmt_dinode *d, const struct xprob_sink *sink)
{
	static const struct { const char *name; size_t off; } t[] = {
		{ "core.atime.nsec", DI_ATIME + 4 }, { "core.mtime.nsec", DI_MTIME + 4 },
		{ "core.ctime.nsec", DI_CTIME + 4 }, { "v3.crtime.nsec", DI_CRTIME + 4 },
	};
	const struct xfmt_timestamp *v[] = { &d->atime, &d->mtime, &d->ctime, &d->crtime };
	unsigned n = 0, count = d->core_size == XFMT_DINODE_V3_CORE ? 4 : 3;

	/* Bigtime stamps cannot hold an out-of-range nsec by construction. */
	if (d->bigtime)
		return 0;
	for (unsigned i = 0; i < count; i++)
		if (v[i]->nsec >= NSEC_PER_SEC)
			n += (unsigned)xprob_emit_obs(sink, XP_inoBadTimestamp, t[i].name,
						      t[i].off, v[i]->nsec);
	return n;
}

/*
 * The rules the kernel's inode verifier applies whatever the mode: a free
 * inode breaking one is refused when the kernel reads it back to allocate
 * it (V4 always reads it), and xfs_repair rewrites it.
 */
static unsigned verify_free(const struct xfmt_geom *g, const struct xfmt_dinode *d,
			    const struct xprob_sink *sink)
{
	unsigned n = 0;

#define BAD_FREE(field, off, val) \
	(n += (unsigned)xprob_emit_obs(sink, XP_inoFreeBadCore, (field), (off), (val)))
	if (d->size & (1ull << 63))
		BAD_FREE("core.size", DI_SIZE, d->size);
	if (d->forkoff) {
		if (d->format == XFS_DINODE_FMT_DEV ? d->forkoff != 1 :
		    d->format > XFS_DINODE_FMT_BTREE || (size_t)d->forkoff >= d->lit_size / 8)
			BAD_FREE("core.forkoff", DI_FORKOFF, d->forkoff);
	} else {
		if (d->aformat != 0 && d->aformat != XFS_DINODE_FMT_EXTENTS)
			BAD_FREE("core.aformat", DI_AFORMAT, d->aformat);
		if (d->anextents)
			BAD_FREE("core.naextents", d->nrext64 ? DI_NEXTENTS : DI_ANEXTENTS,
				 d->anextents);
	}
	/* a hint flag needs a file or directory; sizes within bounds */
	if ((d->flags & (XFS_DIFLAG_EXTSIZE | XFS_DIFLAG_EXTSZINHERIT)) ||
	    d->extsize > MAX_BMBT_EXTLEN ||
	    (!(d->flags & XFS_DIFLAG_REALTIME) && d->extsize > g->agblocks / 2))
		BAD_FREE("core.extsize", DI_EXTSIZE, d->extsize);
	if (d->version >= 3 &&
	    ((d->flags2 & (XFS_DIFLAG2_REFLINK | XFS_DIFLAG2_COWEXTSIZE)) ||
	     (d->bigtime && !xfmt_geom_has_bigtime(g))))
		BAD_FREE("v3.flags2", DI_FLAGS2, d->flags2);
#undef BAD_FREE
	return n;
}

unsigned xfmt_dinode_verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			    uint64_t ino, const struct xfmt_dinode *d,
			    const struct xprob_sink *sink)
{
	return xfmt_dinode_verify_crc(buf, len, g, ino, d, NULL, sink);
}

unsigned xfmt_dinode_verify_crc(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
				uint64_t ino, const struct xfmt_dinode *d, const uint32_t *crc,
				const struct xprob_sink *sink)
{
	uint16_t type = d->mode & XFMT_S_IFMT;
	uint32_t first, last, agino;
	uint64_t nexts;
	bool v3 = g->v5;
	unsigned n = 0;

	if (len < d->core_size || d->core_size == 0)
		return (unsigned)xprob_emit_val(sink, XP_inoUnreadable, NULL, 0,
						g->v5 ? XFMT_DINODE_V3_CORE : XFMT_DINODE_V2_CORE,
						len);

	/* Header checks: these apply to free inodes as well. */
	if (d->magic != XFS_DINODE_MAGIC)
		n += (unsigned)xprob_emit_val(sink, XP_inoBadMagic, "core.magic", DI_MAGIC,
					      XFS_DINODE_MAGIC, d->magic);
	if (g->v5 ? d->version != 3 : (d->version != 1 && d->version != 2))
		n += (unsigned)xprob_emit_val(sink, XP_inoBadVersion, "core.version",
					      DI_VERSION, g->v5 ? 3 : 2, d->version);
	if (g->v5) {
		uint32_t want = crc ? *crc : xfmt_crc32c_excluding(buf, len, DI_CRC);

		if (want != d->crc)
			n += (unsigned)xprob_emit_val(sink, XP_inoBadCrc, "v3.crc", DI_CRC,
						      want, d->crc);
		if (d->ino != ino)
			n += (unsigned)xprob_emit_val(sink, XP_inoBadInumber, "v3.inumber",
						      DI_INO, ino, d->ino);
		if (memcmp(d->uuid, g->meta_uuid, 16) != 0)
			n += (unsigned)xprob_emit(sink, XP_inoBadUuid, "v3.uuid", DI_UUID);
	}
	/* The inode buffer verifier checks the unlinked pointer of every slot. */
	agino = d->next_unlinked;
	if (agino != XFS_NULLAGINO &&
	    (!xfmt_agino_range(g, xfmt_geom_ino_agno(g, ino), &first, &last) ||
	     agino < first || agino > last))
		n += (unsigned)xprob_emit_obs(sink, XP_inoBadNextUnlinked, "next_unlinked",
					      DI_NEXT_UNLINKED, agino);

	if (!xfmt_dinode_in_use(d))
		return n + verify_free(g, d, sink);

	/* On a metadata file the old link count is its type (di_metatype). */
	if (d->version >= 3 && (d->flags2 & XFS_DIFLAG2_METADATA) && xfmt_geom_has_metadir(g)) {
		/* a directory of the tree is of the directory type, and only
		 * a directory is */
		bool dir = (d->mode & XFMT_S_IFMT) == XFMT_S_IFDIR;

		if (d->onlink >= XFS_METAFILE_MAX || dir != (d->onlink == XFS_METAFILE_DIR))
			n += (unsigned)xprob_emit_obs(sink, XP_inoBadOnlink, "core.metatype",
						      DI_ONLINK, d->onlink);
		n += verify_metafile(d, sink);
	} else if (d->version >= 2 && d->onlink != 0) {
		n += (unsigned)xprob_emit_obs(sink, XP_inoBadOnlink, "core.onlink", DI_ONLINK,
					      d->onlink);
	}
	if (d->size & (1ull << 63))
		n += (unsigned)xprob_emit_obs(sink, XP_inoBadSize, "core.size", DI_SIZE, d->size);
	/* A directory's blocks past its data space are its index (leaf,
	 * nodes, free blocks): its size never reaches them (xfs_repair's
	 * "directory inode has bad size"). */
	else if (type == XFMT_S_IFDIR && d->size > XFS_DIR2_LEAF_OFFSET &&
		 (d->format == XFS_DINODE_FMT_EXTENTS || d->format == XFS_DINODE_FMT_BTREE))
		n += (unsigned)xprob_emit_obs(sink, XP_inoBadSize, "core.size", DI_SIZE, d->size);
	/* A device, FIFO or socket holds no data: its size is 0. */
	if ((type == XFMT_S_IFCHR || type == XFMT_S_IFBLK || type == XFMT_S_IFIFO ||
	     type == XFMT_S_IFSOCK) && d->size != 0)
		n += (unsigned)xprob_emit_val(sink, XP_inoBadSize, "core.size", DI_SIZE, 0, d->size);
	/* Empty directories and symlinks exist only while being freed. */
	if ((type == XFMT_S_IFDIR || type == XFMT_S_IFLNK) && d->size == 0 &&
	    (d->version > 1 ? d->nlink : d->onlink) != 0)
		n += (unsigned)xprob_emit_obs(sink, XP_inoBadSize, "core.size", DI_SIZE, 0);

	/* A device holds no blocks: a count beside its number is the count's
	 * own fault, not the block count's.  nextents may be a hostile 64-bit
	 * value: saturate the sum. */
	{
		uint64_t dn = d->format == XFS_DINODE_FMT_DEV ? 0 : d->nextents;

		nexts = dn + d->anextents;
		if (nexts < dn)
			nexts = UINT64_MAX;
	}
	if (nexts > d->nblocks)
		n += (unsigned)xprob_emit_val(sink, XP_inoBadNblocks, "core.nblocks",
					      DI_NBLOCKS, nexts, d->nblocks);
	if (nexts == 0 && d->nblocks != 0)
		n += (unsigned)xprob_emit_val(sink, XP_inoBadNblocks, "core.nblocks",
					      DI_NBLOCKS, 0, d->nblocks);
	if (type == XFMT_S_IFDIR && d->nextents > (DIR_SPACE_BYTES >> g->blocklog))
		n += (unsigned)xprob_emit_obs(sink, XP_inoBadNextents, "core.nextents",
					      d->nrext64 ? DI_BIG_NEXTENTS : DI_NEXTENTS,
					      d->nextents);

	if (d->forkoff) {
		if (d->format == XFS_DINODE_FMT_DEV) {
			if (d->forkoff != 1)
				n += (unsigned)xprob_emit_obs(sink, XP_inoBadDevFork, "core.forkoff",
							      DI_FORKOFF, d->forkoff);
		} else if ((size_t)d->forkoff >= d->lit_size / 8) {
			n += (unsigned)xprob_emit_obs(sink, XP_inoBadForkoff, "core.forkoff",
						      DI_FORKOFF, d->forkoff);
		} else if (d->stray_forkoff) {
			n += (unsigned)xprob_emit_val(sink, XP_inoStrayForkoff, "core.forkoff",
						      DI_FORKOFF, 0, d->forkoff);
		}
	}

	if (!mode_type_valid(d->mode)) {
		n += (unsigned)xprob_emit_obs(sink, XP_inoBadMode, "core.mode", DI_MODE, d->mode);
	} else if (type == XFMT_S_IFREG || type == XFMT_S_IFDIR || type == XFMT_S_IFLNK) {
		n += verify_fork(buf, d, g, 0, sink);
	} else if (d->format != XFS_DINODE_FMT_DEV) {
		n += (unsigned)xprob_emit_obs(sink, XP_inoBadFormat, "core.format", DI_FORMAT,
					      d->format);
	} else if (d->nextents) {
		n += (unsigned)xprob_emit_val(sink, XP_inoBadNextents, "core.nextents",
					      d->nrext64 ? DI_BIG_NEXTENTS : DI_NEXTENTS, 0,
					      d->nextents);
	}

	if (d->has_attr_fork) {
		n += verify_fork(buf, d, g, 1, sink);
	} else {
		/* No attr fork: aformat EXTENTS and no extents.  The kernel also
		 * reads 0 (a core never written in use), but every in-use core it
		 * writes says EXTENTS, and xfs_repair resets a 0 ("bad attribute
		 * format 0"). */
		if (d->aformat != XFS_DINODE_FMT_EXTENTS)
			n += (unsigned)xprob_emit_obs(sink, XP_inoBadFormat, "core.aformat",
						      DI_AFORMAT, d->aformat);
		if (d->anextents)
			n += (unsigned)xprob_emit_obs(sink, XP_inoBadNextents, "core.naextents",
						      d->nrext64 ? DI_NEXTENTS : DI_ANEXTENTS,
						      d->anextents);
	}

	if ((d->flags & ~XFS_DIFLAG_ANY) || (d->flags & ~xfmt_dinode_flags_allowed(g, ino, d->mode)))
		n += (unsigned)xprob_emit_obs(sink, XP_inoBadFlags, "core.flags", DI_FLAGS,
					      d->flags);
	n += verify_extsize(g, d, sink);
	if (v3)
		n += verify_v3_flags(buf, g, d, sink);
	n += verify_times(d, sink);
	return n;
}

/* -------------------------------------------------------- field tables */

#define DIF(n, o, s, k, v5, d) \
	{ .name = (n), .off = (o), .size = (s), .kind = (k), .v5only = (v5), .doc = (d) }
/* One flag bit, printed by xfs_db as its own 0/1 line. */
#define DIB(n, o, s, b, v5, d) \
	{ .name = (n), .off = (o), .size = (s), .kind = XFK_BIT, .v5only = (v5), .doc = (d), \
	  .bit = (b) }

#define DINODE_FIELDS_HEAD \
	DIF("core.magic", DI_MAGIC, 2, XFK_HEX, 0, "0x494e \"IN\""), \
	DIF("core.mode", DI_MODE, 2, XFK_OCT, 0, "file type and permission bits"), \
	DIF("core.version", DI_VERSION, 1, XFK_UINT, 0, "inode core version: 3 on v5, 1 or 2 on v4"), \
	DIF("core.format", DI_FORMAT, 1, XFK_ENUM, 0, "data fork format: 0 dev, 1 local, 2 extents, 3 btree"), \
	DIF("core.onlink", DI_ONLINK, 2, XFK_UINT, 0, "v1 link count; 0 on v2/v3"), \
	DIF("core.uid", DI_UID, 4, XFK_UINT, 0, "owner user id"), \
	DIF("core.gid", DI_GID, 4, XFK_UINT, 0, "owner group id"), \
	DIF("core.nlinkv2", DI_NLINK, 4, XFK_UINT, 0, "link count"), \
	DIF("core.projid_lo", DI_PROJID_LO, 2, XFK_UINT, 0, "project id, low 16 bits"), \
	DIF("core.projid_hi", DI_PROJID_HI, 2, XFK_UINT, 0, "project id, high 16 bits")

#define DINODE_FIELDS_TIMES \
	DIF("core.atime", DI_ATIME, 8, XFK_TIME, 0, "last access"), \
	DIF("core.mtime", DI_MTIME, 8, XFK_TIME, 0, "last data modification"), \
	DIF("core.ctime", DI_CTIME, 8, XFK_TIME, 0, "last inode change"), \
	DIF("core.size", DI_SIZE, 8, XFK_UINT, 0, "file size in bytes"), \
	DIF("core.nblocks", DI_NBLOCKS, 8, XFK_UINT, 0, "blocks of both forks incl. bmbt blocks"), \
	DIF("core.extsize", DI_EXTSIZE, 4, XFK_UINT, 0, "extent size hint, blocks")

#define DINODE_FIELDS_TAIL \
	DIF("core.forkoff", DI_FORKOFF, 1, XFK_UINT, 0, "attr fork offset in 8-byte units; 0 = none"), \
	DIF("core.aformat", DI_AFORMAT, 1, XFK_ENUM, 0, "attr fork format"), \
	DIF("core.dmevmask", DI_DMEVMASK, 4, XFK_UINT, 0, "obsolete DMAPI event mask"), \
	DIF("core.dmstate", DI_DMSTATE, 2, XFK_UINT, 0, "obsolete DMAPI state"), \
	DIF("core.flags", DI_FLAGS, 2, XFK_HEX, 0, "XFS_DIFLAG_* bits, listed one by one below"), \
	DIB("core.newrtbm", DI_FLAGS, 2, 2, 0, "realtime bitmap inode: new format"), \
	DIB("core.prealloc", DI_FLAGS, 2, 1, 0, "space preallocated"), \
	DIB("core.realtime", DI_FLAGS, 2, 0, 0, "data on the realtime device"), \
	DIB("core.immutable", DI_FLAGS, 2, 3, 0, "immutable"), \
	DIB("core.append", DI_FLAGS, 2, 4, 0, "append only"), \
	DIB("core.sync", DI_FLAGS, 2, 5, 0, "synchronous writes"), \
	DIB("core.noatime", DI_FLAGS, 2, 6, 0, "no access time updates"), \
	DIB("core.nodump", DI_FLAGS, 2, 7, 0, "skip in dumps"), \
	DIB("core.rtinherit", DI_FLAGS, 2, 8, 0, "new files inherit REALTIME"), \
	DIB("core.projinherit", DI_FLAGS, 2, 9, 0, "new files inherit the project id"), \
	DIB("core.nosymlinks", DI_FLAGS, 2, 10, 0, "no symlinks may be created here"), \
	DIB("core.extsz", DI_FLAGS, 2, 11, 0, "extent size hint set"), \
	DIB("core.extszinherit", DI_FLAGS, 2, 12, 0, "new files inherit the extent size hint"), \
	DIB("core.nodefrag", DI_FLAGS, 2, 13, 0, "do not defragment"), \
	DIB("core.filestream", DI_FLAGS, 2, 14, 0, "filestream allocator"), \
	DIF("core.gen", DI_GEN, 4, XFK_UINT, 0, "generation number"), \
	DIF("next_unlinked", DI_NEXT_UNLINKED, 4, XFK_NULLABLE, 0, "next agino on the AGI unlinked list"), \
	DIF("v3.crc", DI_CRC, 4, XFK_CRC, 1, "CRC32c of the whole inode"), \
	DIF("v3.change_count", DI_CHANGECOUNT, 8, XFK_UINT, 1, "i_version change counter"), \
	DIF("v3.lsn", DI_LSN, 8, XFK_LSN, 1, "log sequence number of the last flush"), \
	DIF("v3.flags2", DI_FLAGS2, 8, XFK_HEX, 1, "XFS_DIFLAG2_* bits"), \
	DIF("v3.cowextsize", DI_COWEXTSIZE, 4, XFK_UINT, 1, "copy-on-write extent size hint, blocks"), \
	DIF("v3.crtime", DI_CRTIME, 8, XFK_TIME, 1, "creation time"), \
	DIF("v3.inumber", DI_INO, 8, XFK_UINT, 1, "this inode's own number"), \
	DIF("v3.uuid", DI_UUID, 16, XFK_UUID, 1, "filesystem metadata uuid"), \
	DIB("v3.reflink", DI_FLAGS2, 8, 1, 1, "blocks may be shared (reflink)"), \
	DIB("v3.cowextsz", DI_FLAGS2, 8, 2, 1, "copy-on-write extent size hint set"), \
	DIB("v3.dax", DI_FLAGS2, 8, 0, 1, "direct access (DAX)"), \
	DIB("v3.bigtime", DI_FLAGS2, 8, 3, 1, "timestamps in the 64-bit nanosecond encoding"), \
	DIB("v3.nrext64", DI_FLAGS2, 8, 4, 1, "large extent counters (NREXT64 layout)")

const struct xfmt_field xfmt_dinode_core_fields[] = {
	DINODE_FIELDS_HEAD,
	DIF("core.flushiter", DI_FLUSHITER, 2, XFK_UINT, 0, "v2 only: flush counter (zero pad on v3)"),
	DINODE_FIELDS_TIMES,
	DIF("core.nextents", DI_NEXTENTS, 4, XFK_UINT, 0, "data fork extent count"),
	DIF("core.naextents", DI_ANEXTENTS, 2, XFK_UINT, 0, "attr fork extent count"),
	DINODE_FIELDS_TAIL,
	XFMT_FIELD_END
};

const struct xfmt_field xfmt_dinode_nrext64_fields[] = {
	DINODE_FIELDS_HEAD,
	DIF("core.nextents", DI_BIG_NEXTENTS, 8, XFK_UINT, 1, "data fork extent count (64-bit)"),
	DINODE_FIELDS_TIMES,
	DIF("core.naextents", DI_NEXTENTS, 4, XFK_UINT, 1, "attr fork extent count (32-bit)"),
	DINODE_FIELDS_TAIL,
	XFMT_FIELD_END
};

const struct xfmt_field *xfmt_dinode_fields(const struct xfmt_dinode *d)
{
	return d->nrext64 ? xfmt_dinode_nrext64_fields : xfmt_dinode_core_fields;
}
