/*
 * log_events.h - a dirty log's committed transactions as file-level events:
 * what was created, linked, unlinked, renamed, written, truncated, changed
 * or freed, in log order.
 *
 * Each transaction's inode and directory-buffer items are applied, in log
 * order, to shadow copies of what they change (first read from the image as
 * it is on disk, before any replay), and each copy is compared before and
 * after: names that left and joined directories (short-form directories in
 * their inodes, block and data blocks of larger ones by the owner their v5
 * header names), and inode cores that came into use, went out of it or
 * changed size, mapping, owner, mode or extended attributes.  A name that
 * left one place and joined another for the same inode in one transaction
 * is a rename.  What the log holds is all there is: an event is as exact
 * as the items (a V4 directory block names no owner and is not read).
 */
#ifndef XA_LOG_EVENTS_H
#define XA_LOG_EVENTS_H

#include <stddef.h>
#include <stdint.h>

struct xa_ctx;

enum xa_ev_kind {
	XA_EV_CREATE,    /* a new inode named (dir, name) */
	XA_EV_LINK,      /* another name for an existing inode */
	XA_EV_UNLINK,    /* a name removed (the inode freed too when ev->freed) */
	XA_EV_RENAME,    /* (dir, name) -> (dir2, name2) */
	XA_EV_FREE,      /* an inode freed with no name removed in the same transaction */
	XA_EV_WRITE,     /* size grew, blocks were mapped, the mapping moved
			    (copy-on-write, a remap), or mtime and ctime moved
			    together (a write in place) */
	XA_EV_TRUNCATE,  /* size shrank, or blocks were unmapped */
	XA_EV_SETATTR,   /* mode, owner, group, inode flags (a reflink marks its
			    source), or an mtime set apart from the ctime (utimes) */
	XA_EV_XATTR,     /* the attribute fork changed */
};

struct xa_event {
	enum xa_ev_kind kind;
	uint64_t lsn;              /* the transaction's commit LSN */
	uint64_t ino;
	uint64_t dir, dir2;        /* directories of the names (0: none) */
	const uint8_t *name, *name2;
	size_t   namelen, namelen2;
	uint16_t mode;             /* the inode's mode after (before, when freed) */
	uint16_t old_mode;
	uint32_t uid, gid, old_uid, old_gid;
	uint64_t size, old_size;
	uint64_t nextents, old_nextents;
	int64_t  mtime, old_mtime;        /* seconds */
	int64_t  atime, ctime, crtime;    /* seconds, after (before, when freed) */
	uint64_t flags, old_flags;        /* di_flags | di_flags2 << 16 */
	int      freed;            /* UNLINK: the inode was freed in the same transaction */
};

/* Called per event; a non-zero return stops the walk and is returned. */
typedef int (*xa_event_fn)(void *arg, const struct xa_event *e);

/*
 * Walk the dirty log of ctx (the bounds the log pass found) and hand every
 * event to fn, transaction by transaction in log order.  Returns 0 (a clean
 * log: no events), fn's result, or a negative xerr.  Memory is bounded by
 * XA_LOG_REPLAY_MAX_BYTES of shadow copies.
 */
int xa_log_events(struct xa_ctx *ctx, xa_event_fn fn, void *arg);

/* "create", "link", "unlink", ... */
const char *xa_ev_name(enum xa_ev_kind k);

#endif /* XA_LOG_EVENTS_H */
