/*
 * xml_writer.h - what every XML document xfsrecon writes shares: a writer
 * that remembers its first failure, attribute helpers that escape hostile
 * bytes, one <finding> element, and saving a finished document without ever
 * writing over the image.
 */
#ifndef XA_XML_WRITER_H
#define XA_XML_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libxml/xmlwriter.h>

struct xa_finding;

/* Bytes of a rendered finding message; templates are short, this is ample. */
#define XA_XML_MSG_MAX 512u

/*
 * A writer that remembers its first failure, so the document code below
 * reads as a list of elements instead of a ladder of error checks.
 */
struct xa_xw {
	xmlTextWriterPtr w;
	bool failed;
};

/* libxml2 speaks unsigned char; its BAD_CAST would also drop const. */
const xmlChar *xa_xc(const char *s);

/* Each helper does nothing once the writer has failed. */
void xa_xw_check(struct xa_xw *x, int rc);
void xa_xw_start(struct xa_xw *x, const char *name);
void xa_xw_end(struct xa_xw *x);
/* s must already be valid UTF-8 (a literal, a number, or escaped bytes). */
void xa_xw_attr(struct xa_xw *x, const char *name, const char *s);
/* An attribute holding hostile bytes: escaped to safe UTF-8 first. */
void xa_xw_attr_bytes(struct xa_xw *x, const char *name, const void *bytes, size_t len);
void xa_xw_attr_u64(struct xa_xw *x, const char *name, uint64_t v);
void xa_xw_attr_hex32(struct xa_xw *x, const char *name, uint32_t v);
void xa_xw_attr_bool(struct xa_xw *x, const char *name, bool v);
void xa_xw_attr_uuid(struct xa_xw *x, const char *name, const uint8_t u[16]);
/* A SHA-256 as 64 lower-case hex digits. */
void xa_xw_attr_sha256(struct xa_xw *x, const char *name, const uint8_t h[32]);

/* One <finding> element (code, id, severity, fix, location, values, message);
 * id_attr, when not NULL, is written first as attribute "ref". */
void xa_xw_finding(struct xa_xw *x, const struct xa_finding *fd, const char *id_attr);

/*
 * Write a finished document to path ("-" = standard output) by the rules of
 * analyzer/io/outpath.h, the input being image_path and image_fd (either
 * may be NULL or -1): never the input or anything aliasing it, never a
 * block device, never through a symlink; an existing regular file is
 * replaced (a report is rewritten on each run), a character device or FIFO
 * written.  Returns 0, XERR_USAGE (refused) or XERR_IO; err says why.
 */
int xa_xml_save(const char *image_path, int image_fd, const char *path, const uint8_t *data,
		size_t len, char *err, size_t errlen);

/*
 * The same for a document that must not replace an existing file: path is
 * created, and an existing path (or a symlink there) is refused
 * (XERR_EXISTS, XERR_USAGE) unless force.  what names the document in err
 * ("the map").  Returns 0, XERR_EXISTS, XERR_USAGE (refused) or XERR_IO.
 */
int xa_xml_save_new(const char *image_path, int image_fd, const char *path, const uint8_t *data,
		    size_t len, bool force, const char *what, char *err, size_t errlen);

#endif /* XA_XML_WRITER_H */
