/*
 * image_zstd.c - placeholder until the zstd backend lands.
 */
#include "analyzer/io/image.h"

#include <stdio.h>

#include "analyzer/errors.h"

int ximg_open_zstd(const char *path, struct ximg **out, char *err, size_t errlen)
{
	(void)out;
	snprintf(err, errlen, "%s: zstd images are not supported yet", path);
	return XERR_UNSUPPORTED;
}
