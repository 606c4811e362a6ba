/*
 * field_print.c - xfs_db-style rendering of table-described fields.
 */
#include "analyzer/report/field_print.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "formats/endian.h"

void xa_uuid_format(const uint8_t *u, char *buf)
{
	snprintf(buf, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		 u[12], u[13], u[14], u[15]);
}

/* Seconds from 1901-12-13 20:45:52 UTC (bigtime epoch) to the Unix epoch. */
#define BIGTIME_EPOCH_OFFSET 2147483648ll

void xa_timestamp_decode(uint64_t raw, bool bigtime, int64_t *sec, uint32_t *nsec)
{
	if (bigtime) {
		*sec = (int64_t)(raw / 1000000000ull) - BIGTIME_EPOCH_OFFSET;
		*nsec = (uint32_t)(raw % 1000000000ull);
	} else {
		*sec = (int32_t)(uint32_t)(raw >> 32);
		*nsec = (uint32_t)raw;
	}
}

static void print_chars(FILE *out, const uint8_t *p, size_t n)
{
	fputc('"', out);
	for (size_t i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7F && p[i] != '"' && p[i] != '\\')
			fputc(p[i], out);
		else
			fprintf(out, "\\%03o", p[i]);
	}
	fputc('"', out);
}

static bool all_ones(uint64_t v, unsigned size)
{
	return size >= 8 ? v == UINT64_MAX : v == ((1ull << (8 * size)) - 1);
}

static void print_time(FILE *out, const char *prefix, const struct xfmt_field *f,
		       uint64_t raw, bool bigtime)
{
	int64_t sec;
	uint32_t nsec;
	time_t t;
	struct tm tm;
	char buf[64];

	xa_timestamp_decode(raw, bigtime, &sec, &nsec);
	t = (time_t)sec;
	if (gmtime_r(&t, &tm) && strftime(buf, sizeof(buf), "%a %b %e %H:%M:%S %Y", &tm))
		fprintf(out, "%s%s.sec = %s\n", prefix, f->name, buf);
	else
		fprintf(out, "%s%s.sec = %" PRId64 "\n", prefix, f->name, sec);
	fprintf(out, "%s%s.nsec = %" PRIu32 "\n", prefix, f->name, nsec);
}

void xa_field_print(FILE *out, const struct xfmt_field *f, const uint8_t *buf,
		    size_t len, const struct xa_field_print_opts *o)
{
	const char *prefix = o && o->prefix ? o->prefix : "";
	uint64_t v = 0;
	char u[40];

	if (f->v5only && o && !o->v5)
		return;
	if (f->off > len || len - f->off < f->size) {
		fprintf(out, "%s%s = <truncated>\n", prefix, f->name);
		return;
	}
	if (f->kind == XFK_TIME) {
		print_time(out, prefix, f, xfmt_get_be64(buf + f->off), o && o->bigtime);
		return;
	}
	fprintf(out, "%s%s = ", prefix, f->name);
	switch (f->kind) {
	case XFK_UUID:
		xa_uuid_format(buf + f->off, u);
		fputs(u, out);
		break;
	case XFK_CHARS:
		print_chars(out, buf + f->off, f->size);
		break;
	case XFK_BYTES:
		for (unsigned i = 0; i < f->size; i++)
			fprintf(out, "%02x", buf[f->off + i]);
		break;
	case XFK_CRC:
		/* xfs_db shows the stored bytes read big-endian. */
		fprintf(out, "0x%08" PRIx32, xfmt_get_be32(buf + f->off));
		break;
	default:
		if (xfmt_field_get(buf, len, f, &v) != 0) {
			fputs("<invalid>", out);
			break;
		}
		switch (f->kind) {
		case XFK_HEX:
		case XFK_LSN:
			fprintf(out, "0x%" PRIx64, v);
			break;
		case XFK_OCT:
			fprintf(out, "0%" PRIo64, v);
			break;
		case XFK_NULLABLE:
			if (all_ones(v, f->size))
				fputs("null", out);
			else
				fprintf(out, "%" PRIu64, v);
			break;
		case XFK_SINT: {
			int64_t s = f->size >= 8 ? (int64_t)v
				  : (int64_t)(v ^ (1ull << (8 * f->size - 1))) -
				    (int64_t)(1ull << (8 * f->size - 1));
			fprintf(out, "%" PRId64, s);
			break;
		}
		default:
			fprintf(out, "%" PRIu64, v);
			break;
		}
	}
	if (o && o->annotate && f->doc)
		fprintf(out, "    # +0x%x, %u byte%s: %s", f->off, f->size,
			f->size == 1 ? "" : "s", f->doc);
	fputc('\n', out);
}

void xa_fields_print(FILE *out, const struct xfmt_field *table, const uint8_t *buf,
		     size_t len, const struct xa_field_print_opts *o)
{
	for (; table->name; table++)
		xa_field_print(out, table, buf, len, o);
}
