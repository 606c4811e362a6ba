/*
 * report_text.h - the human-readable outputs of `check` and `info`.
 */
#ifndef XC_REPORT_TEXT_H
#define XC_REPORT_TEXT_H

#include <stdio.h>

struct xa_ctx;

/* Every finding, one per line, then a summary line. */
void xc_report_text_findings(FILE *out, const struct xa_ctx *ctx);

/* Geometry, features, log state and the per-AG table. */
void xc_report_text_info(FILE *out, const struct xa_ctx *ctx);

/* The log's head, tail, records, transactions and what replay did (lines
 * indented under the "log:" line; nothing when no log was read). */
void xc_report_text_log(FILE *out, const struct xa_ctx *ctx);

/* Names of the feature bits set in the chosen superblock, space separated. */
void xc_features_string(const struct xa_ctx *ctx, char *buf, size_t len);

#endif /* XC_REPORT_TEXT_H */
