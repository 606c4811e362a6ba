/*
 * repair_metadir.c - the planner's metadata directory tree phase
 * (filesystems with the metadir feature): the tree the kernel finds its
 * metadata files by, written again where the check found it broken.
 *
 * Model: the tree as the plan leaves the inodes (after the inode phase),
 * walked from sb_metadirino.  A directory keeps an entry whose name is
 * legal and which names a live metadata file no other entry named, its
 * file type taken from the inode.  The root, when it is lost or the inode
 * phase cleared it, is made anew as xfs_repair 6.13 reinitializes it (an
 * empty short-form directory, metadata flags, owner 0; the generation its
 * children's parent pointers give, where they have them), and a metadata
 * file no kept entry names is linked back where its own parent pointer puts
 * it, under that name, else where its metadata type says:
 * directories below the root as "quota" or "rtgroups" by what they hold,
 * quota files into "quota" as "user", "group" or "project", realtime
 * bitmap and summary files into "rtgroups" as "N.bitmap" and "N.summary"
 * (N its group, kept in the project id); the action says those names are
 * derived.  One whose place cannot be told stays as it is, its finding
 * unanswered (the repair ends incomplete).  A directory is written when an
 * entry, its "..", its link count or its blocks change; a file's link
 * count is set to 1.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/model/dir.h"
#include "analyzer/model/file.h"
#include "analyzer/model/grow.h"
#include "analyzer/model/xattr.h"
#include "formats/attr.h"
#include "formats/dinode.h"
#include "formats/dinode_enc.h"
#include "formats/dir2.h"
#include "formats/dir2_build.h"
#include "reconstruct/plan.h"
#include "reconstruct/repair_int.h"

/* di_metatype values (the kernel's enum xfs_metafile_type) */
enum { MT_DIR = XFS_METAFILE_DIR, MT_USRQUOTA = 2, MT_GRPQUOTA = 3, MT_PRJQUOTA = 4, MT_RTBITMAP = 5,
       MT_RTSUMMARY = 6 };

struct md_ent {
	uint64_t ino;
	uint8_t  namelen;
	uint8_t  name[256];
	uint8_t  ftype;
	bool     derived;   /* the name comes from the metadata type */
};

struct md_dir {
	uint64_t       ino;
	uint64_t       parent;
	uint64_t       dotdot;     /* as stored (0 = none read) */
	struct md_ent *ents;
	size_t         n, cap;
	uint32_t       subdirs;
	bool           write;
};

struct md {
	struct xr_rp  *rp;
	struct xa_ctx *ctx;
	struct md_dir *dirs;
	size_t         ndirs, cap;
	struct xa_u64set named;
	struct xa_u64set names;    /* (directory, name) pairs kept, hashed */
	size_t         cur;
	bool           new_root;
	size_t         derived;    /* files linked back under their type's name */
	size_t         from_pptr;  /* ... under their parent pointer's */
};

static bool is_dir(uint16_t mode)
{
	return (mode & XFMT_S_IFMT) == XFMT_S_IFDIR;
}

/* A metadata file the plan keeps: in use, not cleared, not the user's. */
static const struct xa_irec *live_meta(const struct md *m, uint64_t ino)
{
	const struct xa_irec *r = xa_irec_find(m->ctx, ino);

	if (!r || !r->metafile || r->names)
		return NULL;
	if (xa_u64set_has(&m->rp->cleared, ino) && !xa_u64set_has(&m->rp->new_inodes, ino))
		return NULL;
	return r;
}

static int add_dir(struct md *m, uint64_t ino, uint64_t parent)
{
	if (xa_grow((void **)&m->dirs, &m->cap, m->ndirs + 1, sizeof(*m->dirs)))
		return XERR_NOMEM;
	memset(&m->dirs[m->ndirs], 0, sizeof(m->dirs[0]));
	m->dirs[m->ndirs].ino = ino;
	m->dirs[m->ndirs].parent = parent;
	m->ndirs++;
	return 0;
}

/* A 64-bit hash of a name in directory dir (FNV-1a): a directory's names
 * are told apart in one look-up whatever their number. */
static uint64_t name_key(uint64_t dir, const uint8_t *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ dir;

	for (size_t i = 0; i < len; i++)
		h = (h ^ name[i]) * 0x100000001b3ull;
	return h == UINT64_MAX ? 0 : h;
}

static bool name_taken(const struct md *m, size_t di, const uint8_t *name, size_t len)
{
	return xa_u64set_has(&m->names, name_key(m->dirs[di].ino, name, len));
}

static int add_ent(struct md *m, size_t di, uint64_t ino, const uint8_t *name, uint8_t namelen,
		   bool derived)
{
	struct md_dir *d = &m->dirs[di];
	const struct xa_irec *r = xa_irec_find(m->ctx, ino);
	struct md_ent *e;

	if (xa_grow((void **)&d->ents, &d->cap, d->n + 1, sizeof(*d->ents)))
		return XERR_NOMEM;
	e = &d->ents[d->n++];
	e->ino = ino;
	e->namelen = namelen;
	memcpy(e->name, name, namelen);
	e->ftype = xfmt_dir3_ftype_from_mode(r->mode);
	e->derived = derived;
	if (xa_u64set_add(&m->named, ino) < 0 ||
	    xa_u64set_add(&m->names, name_key(d->ino, name, namelen)) < 0)
		return XERR_NOMEM;
	if (is_dir(r->mode)) {
		d->subdirs++;
		return add_dir(m, ino, d->ino);
	}
	return 0;
}

static int entry_cb(void *arg, const struct xfmt_dirent *de)
{
	struct md *m = arg;
	struct md_dir *d = &m->dirs[m->cur];
	int dots = xfmt_dir2_name_dots(de->name, de->namelen);
	const struct xa_irec *r;

	if (dots == 2)
		d->dotdot = de->ino;
	if (dots)
		return 0;
	r = live_meta(m, de->ino);
	if (!r || de->ino == m->ctx->sb.metadirino || xa_u64set_has(&m->named, de->ino) ||
	    !xfmt_dir2_name_ok(de->name, de->namelen) ||
	    name_taken(m, m->cur, de->name, de->namelen)) {
		d->write = true;  /* the entry is dropped */
		return 0;
	}
	if (xfmt_geom_has_ftype(&m->ctx->geom) && de->ftype != xfmt_dir3_ftype_from_mode(r->mode))
		d->write = true;
	return add_ent(m, m->cur, de->ino, de->name, de->namelen, false);
}

/* Read directory di's entries as the plan leaves its inode. */
static int read_dir(struct md *m, size_t di)
{
	struct xa_inode ip;
	bool complete = true;
	int rc;

	if (rp_read_planned_inode(m->rp, m->dirs[di].ino, &ip) != 0) {
		m->dirs[di].write = true;
		return 0;
	}
	m->cur = di;
	rc = xa_dir_iterate(m->ctx, &ip, NULL, entry_cb, m, &complete);
	xa_inode_release(&ip);
	if (rc == XERR_NOMEM)
		return rc;
	if (rc || !complete)
		m->dirs[di].write = true;
	return 0;
}

/* The metadata type of inode ino as the plan leaves it (0 = unknown), and
 * its project id (a realtime group file's group number). */
static unsigned metatype(struct md *m, uint64_t ino, uint32_t *projid)
{
	struct xa_inode ip;
	unsigned t = 0;

	if (rp_read_planned_inode(m->rp, ino, &ip) != 0)
		return 0;
	if (ip.d.version >= 3 && (ip.d.flags2 & XFS_DIFLAG2_METADATA))
		t = ip.d.onlink;
	if (projid)
		*projid = ip.d.projid;
	xa_inode_release(&ip);
	return t;
}

/* The parent pointer of a metadata file (filesystems with parent pointers
 * give the tree's files theirs too): the directory, its generation and the
 * name; the first one that decodes. */
struct md_pptr {
	bool     found;
	uint64_t parent;
	uint32_t gen;
	uint8_t  namelen;
	uint8_t  name[256];
};

static int pptr_cb(void *arg, const struct xa_xattr *a)
{
	struct md_pptr *p = arg;

	if (p->found || a->ns != XFMT_ATTR_NS_PARENT || !a->namelen || !a->value_complete ||
	    xfmt_attr_pptr_decode(a->value, a->valuelen, &p->parent, &p->gen) != 0)
		return 0;
	p->found = true;
	p->namelen = a->namelen;
	memcpy(p->name, a->name, a->namelen);
	return 0;
}

static bool read_pptr(struct md *m, uint64_t ino, struct md_pptr *p)
{
	struct xa_inode ip;

	memset(p, 0, sizeof(*p));
	if (!rp_has_pptrs(m->ctx) || rp_read_planned_inode(m->rp, ino, &ip) != 0)
		return false;
	if (ip.d.has_attr_fork)
		(void)xa_xattr_iterate(m->ctx, &ip, NULL, pptr_cb, p, NULL);
	xa_inode_release(&ip);
	return p->found;
}

/* The model directory of inode ino, or SIZE_MAX. */
static size_t dir_index(const struct md *m, uint64_t ino)
{
	for (size_t d = 0; d < m->ndirs; d++)
		if (m->dirs[d].ino == ino)
			return d;
	return SIZE_MAX;
}

/* The directory of the tree named name below the root, or SIZE_MAX (names
 * in a directory are unique: one entry matches at most). */
static size_t named_dir(const struct md *m, const char *name)
{
	const struct md_dir *root = &m->dirs[0];
	uint64_t ino = 0;

	for (size_t k = 0; k < root->n && !ino; k++)
		if (root->ents[k].namelen == strlen(name) &&
		    !memcmp(root->ents[k].name, name, root->ents[k].namelen))
			ino = root->ents[k].ino;
	for (size_t d = 1; ino && d < m->ndirs; d++)
		if (m->dirs[d].ino == ino)
			return d;
	return SIZE_MAX;
}

/* What an unnamed metadata directory holds says what it is. */
static int dir_role_entry(void *arg, const struct xfmt_dirent *de)
{
	struct md *m = ((void **)arg)[0];
	int *quota = ((void **)arg)[1];
	unsigned t;

	if (xfmt_dir2_name_dots(de->name, de->namelen))
		return 0;
	t = metatype(m, de->ino, NULL);
	if (t == MT_USRQUOTA || t == MT_GRPQUOTA || t == MT_PRJQUOTA)
		*quota = 1;
	return 0;
}

static const char *dir_name(struct md *m, uint64_t ino)
{
	struct xa_inode ip;
	int quota = 0;
	void *arg[2] = { m, &quota };
	bool complete = true;

	if (rp_read_planned_inode(m->rp, ino, &ip) != 0)
		return NULL;
	if (xa_dir_iterate(m->ctx, &ip, NULL, dir_role_entry, arg, &complete) == XERR_NOMEM) {
		xa_inode_release(&ip);
		return NULL;
	}
	xa_inode_release(&ip);
	return quota ? "quota" : "rtgroups";
}

/*
 * Link back the live metadata files no kept entry names: directories first
 * (into the root), then the files (into the directory of their kind), so a
 * directory brought back takes its files.
 */
static int read_new_dirs(struct md *m, size_t *unread);

static int reattach(struct md *m, size_t *unread)
{
	struct xa_ctx *ctx = m->ctx;
	size_t qdir = SIZE_MAX, rdir = SIZE_MAX;
	int rc;

	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			/* the directories brought back hold names too */
			rc = read_new_dirs(m, unread);
			if (rc)
				return rc;
			qdir = named_dir(m, "quota");
			rdir = named_dir(m, "rtgroups");
		}
		for (size_t i = 0; i < ctx->nirecs; i++) {
			const struct xa_irec *r = &ctx->irecs[i];
			char name[32];
			struct md_pptr pp;
			uint32_t projid = 0;
			unsigned t;
			size_t di;

			if (r->ino == ctx->sb.metadirino || !live_meta(m, r->ino) ||
			    xa_u64set_has(&m->named, r->ino) || is_dir(r->mode) != (pass == 0))
				continue;
			t = metatype(m, r->ino, &projid);
			di = SIZE_MAX;
			name[0] = '\0';
			if (read_pptr(m, r->ino, &pp) && xfmt_dir2_name_ok(pp.name, pp.namelen) &&
			    (di = dir_index(m, pp.parent)) != SIZE_MAX &&
			    !name_taken(m, di, pp.name, pp.namelen)) {
				/* its own parent pointer names its place */
				rc = add_ent(m, di, r->ino, pp.name, pp.namelen, false);
				if (rc)
					return rc;
				m->dirs[di].write = true;
				m->from_pptr++;
				continue;
			}
			di = SIZE_MAX;
			if (pass == 0 && t == MT_DIR) {
				const char *n = dir_name(m, r->ino);

				if (n) {
					snprintf(name, sizeof(name), "%s", n);
					di = 0;
				}
			} else if (t >= MT_USRQUOTA && t <= MT_PRJQUOTA) {
				static const char *const q[] = { "user", "group", "project" };

				snprintf(name, sizeof(name), "%s", q[t - MT_USRQUOTA]);
				di = qdir;
			} else if (t == MT_RTBITMAP || t == MT_RTSUMMARY) {
				snprintf(name, sizeof(name), "%" PRIu32 ".%s", projid,
					 t == MT_RTBITMAP ? "bitmap" : "summary");
				di = rdir;
			}
			/* no place to tell: it stays unnamed, its finding open */
			if (di == SIZE_MAX || name_taken(m, di, (const uint8_t *)name, strlen(name)))
				continue;
			rc = add_ent(m, di, r->ino, (const uint8_t *)name, (uint8_t)strlen(name), true);
			if (rc)
				return rc;
			m->dirs[di].write = true;
			m->derived++;
		}
	}
	return 0;
}

/* A fresh root for the tree, marked as metadata, in the root's slot. */
static int new_root(struct md *m, int action)
{
	struct xa_ctx *ctx = m->ctx;
	const struct xfmt_geom *g = &ctx->geom;
	uint64_t ino = ctx->sb.metadirino;
	uint8_t *buf;
	struct xfmt_dinode d;
	struct xa_irec *r;
	int rc;

	if (!rp_chunk_of(ctx, ino))
		return XERR_UNSUPPORTED;
	/* never over an inode of the user's tree (a superblock naming the
	 * user's root as the tree's, with no tree root found); an unnamed
	 * one there is the tree's root that lost its metadata flag */
	r = xa_irec_find(ctx, ino);
	if (r && !r->metafile && (r->names || r->reached || ino == ctx->sb.rootino))
		return XERR_UNSUPPORTED;
	buf = malloc(g->inodesize);
	if (!buf)
		return XERR_NOMEM;
	xfmt_dinode_new_encode(buf, g, ino, XFMT_S_IFDIR, 2, 0, m->rp->env.lsn);
	rc = xfmt_dinode_decode(buf, g->inodesize, g, &d);
	if (!rc) {
		xfmt_dinode_mark_metadata(buf, &d, MT_DIR);
		/* the generation its children's parent pointers remember */
		for (size_t i = 0; i < ctx->nirecs; i++) {
			struct md_pptr pp;

			if (ctx->irecs[i].ino != ino && live_meta(m, ctx->irecs[i].ino) &&
			    read_pptr(m, ctx->irecs[i].ino, &pp) && pp.parent == ino) {
				xfmt_dinode_put_gen(buf, pp.gen);
				break;
			}
		}
		xfmt_dinode_seal(buf, g, ino, m->rp->env.lsn);
		rc = rp_write_inode(m->rp, action, ino, buf);
	} else {
		rc = XERR_UNSUPPORTED;
	}
	free(buf);
	if (!rc && xa_u64set_add(&m->rp->new_inodes, ino) < 0)
		rc = XERR_NOMEM;
	if (rc)
		return rc;
	r = xa_irec_find(ctx, ino);
	if (!r) {
		rc = rp_irec_insert(ctx, ino, XFMT_S_IFDIR);
		r = xa_irec_find(ctx, ino);
	}
	if (!rc && r) {
		r->mode = XFMT_S_IFDIR;
		r->metafile = 1;
		r->names = 0;
	}
	if (!rc)
		rp_need_rebuild(m->rp, xfmt_geom_ino_agno(g, ino));
	return rc;
}

static int write_dir(struct md *m, size_t di, int action)
{
	struct md_dir *d = &m->dirs[di];
	struct xfmt_dirent_in *in = calloc(d->n ? d->n : 1, sizeof(*in));
	int rc;

	if (!in)
		return XERR_NOMEM;
	for (size_t k = 0; k < d->n; k++)
		in[k] = (struct xfmt_dirent_in){ d->ents[k].name, d->ents[k].namelen,
						 d->ents[k].ino, d->ents[k].ftype };
	rc = rp_dir_write(m->rp, action, d->ino, d->parent, in, d->n, 2 + d->subdirs);
	free(in);
	return rc;
}

/* A file of the tree whose link count is not 1 gets 1. */
static int fix_file_nlink(struct md *m, uint64_t ino, int action)
{
	const struct xfmt_geom *g = &m->ctx->geom;
	uint8_t *buf = malloc(g->inodesize);
	struct xfmt_dinode d;
	int rc;

	if (!buf)
		return XERR_NOMEM;
	rc = xr_plan_read(m->rp->plan, m->ctx, xfmt_geom_ino_byte(g, ino), buf, g->inodesize);
	if (!rc && xfmt_dinode_decode(buf, g->inodesize, g, &d) == 0 && d.nlink != 1) {
		xfmt_dinode_put_nlink(buf, 1);
		xfmt_dinode_seal(buf, g, ino, m->rp->env.lsn);
		rc = rp_write_inode(m->rp, action, ino, buf);
	}
	free(buf);
	return rc;
}

/* A finding this phase answers: the tree's own, or one about the blocks
 * or entries of a directory of the tree (in dirs, when it is written). */
static bool tree_finding(const struct md *m, const struct xa_finding *f, bool *of_dir)
{
	unsigned code = f->p.code;

	bool own = code >= XP_nsMetadirRootLost && code <= XP_nsMetadirOrphan;

	*of_dir = (f->p.has & XPROB_HAS_INO) && code != XP_nsMetadirOrphan &&
		  dir_index(m, f->p.ino) != SIZE_MAX;
	if (own)
		return true;
	return *of_dir &&
	       (rp_family(code) == FAM_DIR || code == XP_nsDirIncomplete || code == XP_nsBadDot);
}

static bool dir_written(const struct md *m, uint64_t ino)
{
	for (size_t d = 0; d < m->ndirs; d++)
		if (m->dirs[d].ino == ino)
			return m->dirs[d].write;
	return false;
}

static bool has_tree_findings(const struct xa_ctx *ctx)
{
	for (size_t i = 0; i < ctx->findings.count; i++) {
		unsigned code = ctx->findings.items[i].p.code;

		if (code >= XP_nsMetadirRootLost && code <= XP_nsMetadirOrphan)
			return true;
	}
	return false;
}

/* Read the directories of the model from *unread on (reading one adds its
 * subdirectories after it); *unread is then past the last. */
static int read_new_dirs(struct md *m, size_t *unread)
{
	for (; *unread < m->ndirs; (*unread)++) {
		int rc = read_dir(m, *unread);

		if (rc)
			return rc;
		if (m->dirs[*unread].dotdot != m->dirs[*unread].parent)
			m->dirs[*unread].write = true;
	}
	return 0;
}

static int plan_tree(struct md *m)
{
	struct xa_ctx *ctx = m->ctx;
	const uint64_t root = ctx->sb.metadirino;
	const struct xa_irec *r = xa_irec_find(ctx, root);
	size_t unread;
	int rc;

	m->new_root = !r || !is_dir(r->mode) || !r->metafile ||
		      (xa_u64set_has(&m->rp->cleared, root) && !xa_u64set_has(&m->rp->new_inodes, root));
	rc = add_dir(m, root, root);
	if (rc)
		return rc;
	m->dirs[0].write = m->new_root;
	unread = m->new_root ? 1 : 0;
	rc = read_new_dirs(m, &unread);
	if (!rc)
		rc = reattach(m, &unread);
	if (!rc)
		rc = read_new_dirs(m, &unread);
	if (rc)
		return rc;
	for (size_t di = 0; di < m->ndirs; di++) {
		const struct xa_irec *d = xa_irec_find(ctx, m->dirs[di].ino);

		if (d && d->nlink != 2 + m->dirs[di].subdirs)
			m->dirs[di].write = true;
	}
	/* a directory the check found fault with is written whole, even
	 * where the entries read back the same (a header out of bounds) */
	for (size_t i = 0; i < ctx->findings.count; i++) {
		const struct xa_finding *f = &ctx->findings.items[i];
		bool of_dir;

		/* (an orphan brought back is named, not rewritten) */
		if (!(f->p.has & XPROB_HAS_INO) || xprob_severity_of(f->p.code) != XSEV_ERROR ||
		    f->p.code == XP_nsMetadirOrphan || !tree_finding(m, f, &of_dir))
			continue;
		for (size_t di = 0; di < m->ndirs; di++)
			if (m->dirs[di].ino == f->p.ino)
				m->dirs[di].write = true;
	}
	return 0;
}

int rp_plan_metadir(struct xr_rp *rp)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xfmt_geom *g = &ctx->geom;
	struct md m;
	size_t nwrite = 0;
	int action = -1, rc;

	if (!xfmt_geom_has_metadir(g) || !xfmt_sb_ino_usable(g, ctx->sb.metadirino))
		return 0;
	memset(&m, 0, sizeof(m));
	m.rp = rp;
	m.ctx = ctx;
	rc = plan_tree(&m);
	for (size_t di = 0; !rc && di < m.ndirs; di++)
		nwrite += m.dirs[di].write;
	if (rc || (!nwrite && !has_tree_findings(ctx)))
		goto out;
	action = xr_plan_action(rp->plan, XR_ACT_REBUILD_METADIR, xfmt_geom_ino_agno(g, ctx->sb.metadirino),
				ctx->sb.metadirino,
				"metadata directory tree: %s, %zu director%s written%s%s",
				m.new_root ? "its root made anew" : "its root kept", nwrite,
				nwrite == 1 ? "y" : "ies",
				m.from_pptr ? "; files no entry named linked back where their "
					      "parent pointers name them" : "",
				m.derived ? "; files no entry named linked back under the name "
					    "their metadata type gives (derived)" : "");
	if (action < 0) {
		rc = action;
		goto out;
	}
	if (m.new_root) {
		rc = new_root(&m, action);
		if (rc == XERR_UNSUPPORTED) {
			rc = 0;  /* no chunk to put it in: the findings stay */
			goto out;
		}
	}
	for (size_t di = 0; !rc && di < m.ndirs; di++)
		if (m.dirs[di].write) {
			rc = write_dir(&m, di, action);
			if (rc == XERR_UNSUPPORTED) {
				/* no room for its blocks: its findings stay */
				m.dirs[di].write = false;
				rc = 0;
			}
		}
	for (size_t di = 0; !rc && di < m.ndirs; di++)
		for (size_t k = 0; !rc && k < m.dirs[di].n; k++)
			if (m.dirs[di].ents[k].ftype != XFS_DIR3_FT_DIR)
				rc = fix_file_nlink(&m, m.dirs[di].ents[k].ino, action);
	for (size_t i = 0; !rc && i < ctx->findings.count; i++) {
		const struct xa_finding *f = &ctx->findings.items[i];
		bool of_dir;

		if (!tree_finding(&m, f, &of_dir))
			continue;
		if (of_dir && !dir_written(&m, f->p.ino))
			continue;
		if (f->p.code == XP_nsMetadirOrphan && !xa_u64set_has(&m.named, f->p.ino))
			continue;
		rc = rp_answer(rp, action, i);
	}
out:
	for (size_t di = 0; di < m.ndirs; di++)
		free(m.dirs[di].ents);
	free(m.dirs);
	xa_u64set_release(&m.named);
	xa_u64set_release(&m.names);
	return rc;
}
