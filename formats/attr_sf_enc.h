/*
 * attr_sf_enc.h - writing a short-form attr fork (the attributes kept in
 * the inode's literal area) and parent pointer values.
 *
 * A repair that moves, names or revives an inode on a filesystem with
 * parent pointers must leave each inode's "parent." attributes naming
 * exactly its directory entries (xfs_repair 6.10 and later check both
 * ways); most inodes keep their attributes in short form, where the list
 * can be written again whole.
 */
#ifndef XFMT_ATTR_SF_ENC_H
#define XFMT_ATTR_SF_ENC_H

#include <stddef.h>
#include <stdint.h>

/* One attribute to write: flags carries the namespace bits. */
struct xfmt_attr_sf_in {
	uint8_t        flags;
	const uint8_t *name;
	uint8_t        namelen;   /* 1..255 */
	const uint8_t *value;
	uint8_t        valuelen;  /* short form holds at most 255 value bytes */
};

/* Bytes the short-form list of the n attributes e takes, header included. */
size_t xfmt_attr_sf_size(const struct xfmt_attr_sf_in *e, size_t n);

/*
 * Encode the n attributes e, in that order, at fork (cap bytes; the rest
 * of cap is zeroed).  Returns the list's size, or 0 when it does not fit
 * cap, n exceeds 255, an entry has an empty name, or the list would be
 * larger than the 16-bit totsize holds (nothing is written then).
 */
size_t xfmt_attr_sf_encode(const struct xfmt_attr_sf_in *e, size_t n, uint8_t *fork, size_t cap);

/* A parent pointer value: be64 parent inode, be32 its generation. */
void xfmt_attr_pptr_encode(uint8_t value[12], uint64_t parent_ino, uint32_t parent_gen);

#endif /* XFMT_ATTR_SF_ENC_H */
