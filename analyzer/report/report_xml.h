/*
 * report_xml.h - the machine-readable report of `xfsrecon check --xml FILE`.
 *
 * The report is written from a finished struct xa_ctx with libxml2's
 * xmlTextWriter and follows doc/report.xsd (root <xfsrecon-report
 * version="1">).  It is deterministic: the same context gives byte-identical
 * output, so it carries no time stamps, host names or addresses.  Strings that
 * come from the image (the label, later file names) are hostile bytes and go
 * through xa_report_xml_escape before they reach the writer.
 */
#ifndef XA_REPORT_XML_H
#define XA_REPORT_XML_H

#include <stddef.h>

struct xa_ctx;

/*
 * Write the XML report of ctx to path ("-" writes to standard output).
 * The whole document is built in memory first, so a failure leaves no
 * half-written report behind a success code.  Refuses (XERR_USAGE) to write
 * over the image being analyzed: path and ctx->image_path are compared by
 * st_dev/st_ino when both exist.  Returns 0, or a negative xerr
 * (analyzer/errors.h) with a one-line reason in err (errlen bytes).
 */
int xa_report_xml_write(const struct xa_ctx *ctx, const char *path, char *err,
			size_t errlen);

/*
 * Validate the XML file xml_path against the XML Schema xsd_path (libxml2's
 * xmlSchemaValidateFile).  Returns 0 if valid; XERR_FORMAT if the document is
 * invalid or not well formed, XERR_IO if the schema cannot be loaded,
 * XERR_NOMEM; the first error message goes into err.  Used by tests.
 */
int xa_report_xml_validate(const char *xml_path, const char *xsd_path, char *err,
			   size_t errlen);

/*
 * Turn len hostile bytes into a NUL-terminated string that is valid UTF-8
 * and contains only characters XML 1.0 allows and that display safely:
 * well-formed UTF-8 sequences of printable characters are kept; every other
 * byte (invalid or overlong UTF-8, surrogates, C0/C1 controls, DEL,
 * U+FFFE/U+FFFF) becomes the four characters \xNN, and a backslash becomes
 * \\ so the escaping can be undone without ambiguity.  Returns a malloc'd
 * string the caller frees, or NULL when memory runs out.
 */
char *xa_report_xml_escape(const void *bytes, size_t len);

/*
 * The same for one name of a directory entry, with "/" also written as
 * \x2F: a name is never a path, so a stored "/" (which only a damaged or
 * hostile image holds) cannot pose as a separator in a printed path.
 */
char *xa_report_name_escape(const void *bytes, size_t len);

#endif /* XA_REPORT_XML_H */
