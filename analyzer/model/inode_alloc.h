/*
 * inode_alloc.h - is an inode allocated, as the inode btree says: one
 * lookup from the AGI's root down to the leaf that would hold it, for the
 * views that meet inode numbers outside the tree walk (carved names,
 * ncheck) and must not judge by the inode core alone: a chunk the kernel
 * freed whole is never written again, so its cores keep whatever state
 * they last had on disk.
 */
#ifndef XA_INODE_ALLOC_H
#define XA_INODE_ALLOC_H

#include <stdint.h>

struct xa_ctx;

enum xa_ino_alloc {
	XA_INO_UNKNOWN,   /* the inode btree could not be read on the way */
	XA_INO_IN_USE,    /* in a chunk, its free bit clear */
	XA_INO_FREE,      /* in a chunk, its free bit set */
	XA_INO_NO_CHUNK,  /* no chunk holds it (freed whole, a sparse hole, or
			     never allocated) */
};

/* The inode btree's word on inode ino (only the AG headers pass is needed). */
enum xa_ino_alloc xa_inode_alloc(struct xa_ctx *ctx, uint64_t ino);

/* "in use", "free", "chunk freed" or "unknown". */
const char *xa_ino_alloc_name(enum xa_ino_alloc a);

#endif /* XA_INODE_ALLOC_H */
