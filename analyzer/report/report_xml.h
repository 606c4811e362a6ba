/*
 * report_xml.h - the machine-readable report of `xfsrecon check --xml FILE`.
 *
 * The report is written from a finished struct xa_ctx with libxml2's
 * xmlTextWriter and follows doc/report.xsd (root <xfsrecon-report
 * version="1">).  It is deterministic: the same context gives byte-identical
 * output, so it carries no time stamps, host names or addresses.  Strings that
 * come from the image (the label, later file names) are hostile bytes and go
 * through xa_escape_text (escape.h) before they reach the writer.
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

#endif /* XA_REPORT_XML_H */
