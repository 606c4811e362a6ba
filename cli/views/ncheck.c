/*
 * ncheck.c - the paths of inodes, from one walk of the namespace.
 */
#include "cli/views/ncheck.h"

#include <inttypes.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/model/file.h"
#include "analyzer/model/paths.h"
#include "analyzer/model/tree.h"
#include "analyzer/model/u64set.h"
#include "cli/message_streams.h"

static int print_entry(void *arg, const struct xa_tree_entry *e)
{
	fprintf(arg, "%" PRIu64 " %s\n", e->ino, e->path);
	return 0;
}

/* Why no path reaches ino, from the inode itself. */
static const char *why_unnamed(struct xa_ctx *ctx, uint64_t ino)
{
	struct xa_inode ip;
	unsigned type;

	if (!xfmt_geom_ino_valid(&ctx->geom, ino))
		return "not an inode number of this filesystem";
	if (xa_is_metadata_inode(ctx, ino))
		return "a metadata inode, outside the namespace";
	if (xa_inode_read(ctx, ino, &ip) != 0)
		return "no readable inode there";
	type = xa_inode_type(&ip);
	xa_inode_release(&ip);
	return type ? "in use, but no directory of the tree names it" : "a free inode";
}

int xc_cmd_ncheck(struct xa_ctx *ctx, const uint64_t *inos, size_t n, FILE *out, FILE *err)
{
	struct xc_message_streams ms;
	const struct xa_messages *msgs = xc_message_streams(&ms, NULL, err);
	struct xa_u64set want = { 0 }, printed = { 0 };
	struct xa_paths paths;
	int missing = 0, rc;

	if (n == 0) {
		bool incomplete = false;

		fprintf(out, "%" PRIu64 " /\n", ctx->sb.rootino);
		rc = xa_tree_walk(ctx, ctx->sb.rootino, "", true, print_entry, out, msgs,
				  &incomplete);
		return rc ? rc : incomplete ? XERR_IO : 0;
	}
	for (size_t i = 0; i < n; i++)
		if (xa_u64set_add(&want, inos[i]) < 0) {
			xa_u64set_release(&want);
			return XERR_NOMEM;
		}
	rc = xa_paths_find(ctx, &want, 0, 0, msgs, &paths);
	xa_u64set_release(&want);
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		size_t cnt, at = xa_paths_of(&paths, inos[i], &cnt);
		int fresh = xa_u64set_add(&printed, inos[i]);

		/* An inode asked twice is printed once. */
		if (fresh <= 0) {
			if (fresh < 0) {
				rc = XERR_NOMEM;
				goto out;
			}
			continue;
		}
		for (size_t k = 0; k < cnt; k++)
			fprintf(out, "%" PRIu64 " %s\n", inos[i], paths.v[at + k].path);
		if (!cnt) {
			fprintf(err, "xfsrecon: inode %" PRIu64 ": no path: %s\n", inos[i],
				why_unnamed(ctx, inos[i]));
			missing++;
		}
	}
	rc = paths.incomplete ? XERR_IO : missing;
out:
	xa_u64set_release(&printed);
	xa_paths_release(&paths);
	return rc;
}
