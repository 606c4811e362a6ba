/*
 * xattr.h - the extended attributes of one inode, from every attr-fork form
 * (shortform, leaf, node), with remote values assembled.
 */
#ifndef XA_XATTR_H
#define XA_XATTR_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer/findings/findings.h"
#include "formats/attr.h"

struct xa_ctx;
struct xa_inode;

struct xa_xattr {
	enum xfmt_attr_ns ns;
	const uint8_t    *name;
	uint8_t           namelen;
	const uint8_t    *value;          /* valuelen bytes (a remote value as assembled) */
	uint32_t          valuelen;
	bool              value_complete; /* false: part of a remote value was unreadable */
};

/* Called per attribute (half-made INCOMPLETE ones are skipped). */
typedef int (*xa_xattr_fn)(void *arg, const struct xa_xattr *a);

/*
 * Walk the attributes of ip in storage order.  With verify non-NULL every
 * attr-fork block read (leaf, node, remote value) is verified there.
 * *complete (may be NULL) is cleared when part of the fork could not be
 * read.  Returns 0 or a negative xerr (memory, or the callback's).
 */
int xa_xattr_iterate(struct xa_ctx *ctx, const struct xa_inode *ip, struct xa_loc_sink *verify,
		     xa_xattr_fn fn, void *arg, bool *complete);

#endif /* XA_XATTR_H */
