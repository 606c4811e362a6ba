/*
 * errors.c - text for operational error codes.
 */
#include "analyzer/errors.h"

#include <stdarg.h>
#include <stdio.h>

const char *xerr_str(int err)
{
	switch (err) {
	case XERR_OK: return "success";
	case XERR_NOMEM: return "out of memory";
	case XERR_IO: return "I/O error";
	case XERR_USAGE: return "usage error";
	case XERR_NOTXFS: return "not an XFS filesystem";
	case XERR_TRUNCATED: return "image is truncated";
	case XERR_UNSUPPORTED: return "unsupported format or feature";
	case XERR_FORMAT: return "damaged container format";
	case XERR_RANGE: return "read beyond the end of the image";
	case XERR_EXISTS: return "output already exists";
	}
	return "unknown error";
}

int xerr_say(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}
