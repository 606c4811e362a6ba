/*
 * plan_file.h - the stored repair plan and its undo file: one container
 * format (doc/plan-format.md) for both.
 *
 * A container is a fixed header (magic, version, the lengths, the SHA-256 of
 * the index), then a zstd frame holding the XML index, then a zstd frame
 * holding the payload: the bytes of every write, concatenated in the order
 * of the index's <change> elements (ascending offset).  The index names each
 * write (offset, length, structure, AG and block, inode, action) with the
 * SHA-256 of the bytes the target must hold before it and of the bytes it
 * writes.  A plan (magic XFSRPLAN) carries the new bytes; an undo file
 * (XFSRUNDO) is the same thing reversed: its "before" is the plan's "after"
 * and its payload is the old bytes, so `undo` is `apply` of the undo file.
 *
 * A container is input like any image: every length is checked against the
 * file and a bound before memory is taken, the index must hash to the
 * header's digest, the payload to the index's, and each write's bytes to
 * its "after" digest; a damaged file is refused whole.  This file owns the
 * container (save, load, the index elements that apply needs); the index's
 * report parts are cmd_plan.c's.
 */
#ifndef XR_PLAN_FILE_H
#define XR_PLAN_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libxml/xmlreader.h>
#include <libxml/xmlwriter.h>

#include "analyzer/io/outpath.h"
#include "analyzer/report/xml_writer.h"

#define XR_PF_MAGIC_PLAN "XFSRPLAN"
#define XR_PF_MAGIC_UNDO "XFSRUNDO"
#define XR_PF_VERSION    1u
#define XR_PF_HDR_SIZE   96u
/* An index larger than this is refused (a plan of the largest allowed
 * payload, in sector-sized writes, needs about a quarter of it). */
#define XR_PF_INDEX_MAX  (256u << 20)
#define XR_PF_NAME_MAX   32u     /* structure names ("bnobt", "inode", ...) */

enum xr_pf_kind { XR_PF_PLAN = 1, XR_PF_UNDO = 2 };

/* The filesystem a plan was made for: what `apply` compares with TARGET. */
struct xr_pf_fs {
	uint8_t  uuid[16];
	uint32_t blocksize;
	uint16_t sectsize;
	uint32_t agblocks;
	uint32_t agcount;
	uint64_t dblocks;
	uint64_t size;          /* bytes of the filesystem image planned */
};

/* One write, as stored. */
struct xr_pf_change {
	uint64_t offset;        /* filesystem byte offset */
	uint32_t len;
	uint64_t payload_off;   /* where its bytes start in the payload */
	char     structure[XR_PF_NAME_MAX];
	uint32_t agno;          /* XR_NO_AG when none */
	uint32_t agbno;
	uint64_t ino;           /* 0 = none */
	uint32_t action;        /* the action's number (A1 = 1), 0 = none */
	uint8_t  before[32];    /* SHA-256 of the bytes there before the write */
	uint8_t  after[32];     /* SHA-256 of the bytes written */
	bool     outside;       /* reaches past the filesystem (dblocks x blocksize);
				 * only xr_pf_load_review keeps such a write */
};

/* A loaded container. */
struct xr_planfile {
	enum xr_pf_kind      kind;
	uint8_t              id[32];      /* SHA-256 of the index: the file's identity */
	uint8_t              plan_id[32]; /* undo file: the identity of its plan */
	struct xr_pf_fs      fs;
	struct xr_pf_change *changes;     /* owned, ascending offset, no overlaps */
	size_t               nchanges;
	uint8_t             *payload;     /* owned, payload_len bytes */
	uint64_t             payload_len;
	char                *index;       /* owned: the XML index, NUL-terminated */
	size_t               index_len;
	size_t               noutside;    /* writes flagged outside (xr_pf_load_review) */
};

/* Release everything pf owns and zero it. */
void xr_pf_release(struct xr_planfile *pf);

/*
 * Load and verify the container at path (see the header comment).  want is
 * the kind the caller needs (0: either): the other kind is refused with
 * XERR_USAGE and a line saying what the file is.  The payload may hold at most the plan
 * bound (XR_PLAN_MAX_BYTES, or $XFSRECON_PLAN_MAX MiB).  Returns 0 (pf
 * filled, caller releases), XERR_IO, XERR_NOMEM, XERR_USAGE or XERR_FORMAT
 * (a damaged or foreign file); err gets one line.  A write that reaches
 * outside the filesystem the index describes, [0, dblocks x blocksize), is
 * refused (XERR_FORMAT): whatever its digests say, it would land past the
 * filesystem (in the next partition of a disk, say).
 */
int xr_pf_load(const char *path, int want, struct xr_planfile *pf, char *err,
	       size_t errlen);

/* The same for review (show-plan): writes outside the filesystem are kept,
 * each flagged outside and counted in noutside, so they are shown rather
 * than hidden.  Never hand such a pf to anything that writes. */
int xr_pf_load_review(const char *path, int want, struct xr_planfile *pf, char *err,
		      size_t errlen);

/* An index being built in memory: a writer over a growing buffer. */
struct xr_pf_xml {
	xmlBufferPtr buf;
	struct xa_xw x;
};

/*
 * Start an index document whose root is xfsrecon-plan or xfsrecon-undo
 * (version 1), with the filesystem element.  Returns 0 or XERR_NOMEM (then
 * nothing to free).
 */
int xr_pf_xml_begin(struct xr_pf_xml *px, enum xr_pf_kind kind, const struct xr_pf_fs *fs);

/* The payload element: its length and SHA-256. */
void xr_pf_xml_payload(struct xr_pf_xml *px, uint64_t len, const uint8_t sha[32]);

/* One <change> element (action 0 and agno XR_NO_AG and ino 0 are left out). */
void xr_pf_xml_change(struct xr_pf_xml *px, const struct xr_pf_change *c);

/*
 * Close the document; on success *data and *len point into px's buffer (valid
 * until xr_pf_xml_free).  Returns 0 or XERR_NOMEM.
 */
int xr_pf_xml_end(struct xr_pf_xml *px, const uint8_t **data, size_t *len);
void xr_pf_xml_free(struct xr_pf_xml *px);

/*
 * Write a container to path: header, compressed index, compressed payload,
 * fsync'd, then its directory fsync'd, so it is durable when this returns.
 * It is written beside path first and linked into place, so path is either
 * absent or complete.  An existing path is refused (XERR_EXISTS) unless
 * replace; guard (may be NULL) names the inputs that path and the file
 * beside it must never alias (analyzer/io/outpath.h; its force and kind
 * fields are ignored).  The file beside it is PATH.partial, created with
 * O_EXCL | O_NOFOLLOW; an existing one is refused (XERR_EXISTS), never
 * removed.  The new file is 0600.  id, when not
 * NULL, receives the index's SHA-256 (the file's identity).  Returns 0,
 * XERR_EXISTS, XERR_USAGE, XERR_NOMEM or XERR_IO; err gets one line.
 */
int xr_pf_save(const char *path, enum xr_pf_kind kind, const uint8_t *index, size_t index_len,
	       const uint8_t *payload, uint64_t payload_len, bool replace,
	       const struct ximg_out_opts *guard, uint8_t id[32], char *err, size_t errlen);

/* Silence libxml2's own messages on a reader of an index (errors are
 * reported by the caller). */
void xr_pf_reader_quiet(xmlTextReaderPtr r);

/* Parse 64 hex digits into a digest; 0 or -1. */
int xr_pf_parse_sha(const char *s, uint8_t out[32]);

#endif /* XR_PLAN_FILE_H */
