/*
 * field.c - generic access to fields described by a field table.
 */
#include "formats/field.h"

#include <string.h>

#include "formats/endian.h"

int xfmt_field_get(const uint8_t *buf, size_t len, const struct xfmt_field *f,
		   uint64_t *out)
{
	if (f->off > len || len - f->off < f->size)
		return -1;
	switch (f->kind) {
	case XFK_UINT:
	case XFK_HEX:
	case XFK_NULLABLE:
	case XFK_SINT:
	case XFK_LSN:
	case XFK_TIME:
	case XFK_OCT:
	case XFK_ENUM:
		if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
			return -1;
		*out = xfmt_get_be(buf + f->off, f->size);
		return 0;
	case XFK_BIT:
		if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
			return -1;
		if (f->bit >= 8u * f->size)
			return -1;
		*out = (xfmt_get_be(buf + f->off, f->size) >> f->bit) & 1;
		return 0;
	case XFK_CRC:
		if (f->size != 4)
			return -1;
		*out = xfmt_get_le32(buf + f->off);
		return 0;
	default:
		return -1;
	}
}

const struct xfmt_field *xfmt_field_find(const struct xfmt_field *table,
					 const char *name)
{
	for (; table->name; table++)
		if (strcmp(table->name, name) == 0)
			return table;
	return NULL;
}
