/*
 * field_print.c - xfs_db-style rendering of table-described fields.
 */
#include "cli/views/field_print.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "formats/endian.h"

void xc_uuid_format(const uint8_t *u, char *buf)
{
	snprintf(buf, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		 u[12], u[13], u[14], u[15]);
}

/* Seconds from 1901-12-13 20:45:52 UTC (bigtime epoch) to the Unix epoch. */
#define BIGTIME_EPOCH_OFFSET 2147483648ll

void xc_timestamp_decode(uint64_t raw, bool bigtime, int64_t *sec, uint32_t *nsec)
{
	if (bigtime) {
		*sec = (int64_t)(raw / 1000000000ull) - BIGTIME_EPOCH_OFFSET;
		*nsec = (uint32_t)(raw % 1000000000ull);
	} else {
		*sec = (int32_t)(uint32_t)(raw >> 32);
		*nsec = (uint32_t)raw;
	}
}

/* Append printf-style text to a fixed buffer, truncating quietly. */
struct vbuf {
	char  *p;
	size_t cap, n;
};

static void vb_add(struct vbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void vb_add(struct vbuf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (b->n + 1 >= b->cap)
		return;
	va_start(ap, fmt);
	r = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
	va_end(ap);
	if (r > 0)
		b->n = (size_t)r < b->cap - b->n ? b->n + (size_t)r : b->cap - 1;
}

void xc_chars_format(const uint8_t *p, size_t n, char *out, size_t cap)
{
	struct vbuf b = { out, cap, 0 };

	if (cap)
		out[0] = '\0';
	vb_add(&b, "\"");
	for (size_t i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7F && p[i] != '"' && p[i] != '\\')
			vb_add(&b, "%c", p[i]);
		else
			vb_add(&b, "\\%03o", p[i]);
	}
	vb_add(&b, "\"");
}

static bool all_ones(uint64_t v, unsigned size)
{
	return size >= 8 ? v == UINT64_MAX : v == ((1ull << (8 * size)) - 1);
}

static void format_time(const struct xfmt_field *f, uint64_t raw, bool bigtime,
			xc_field_emit_fn fn, void *arg)
{
	int64_t sec;
	uint32_t nsec;
	time_t t;
	struct tm tm;
	char name[96], val[64];

	xc_timestamp_decode(raw, bigtime, &sec, &nsec);
	t = (time_t)sec;
	snprintf(name, sizeof(name), "%s.sec", f->name);
	if (!gmtime_r(&t, &tm) || !strftime(val, sizeof(val), "%a %b %e %H:%M:%S %Y", &tm))
		snprintf(val, sizeof(val), "%" PRId64, sec);
	fn(arg, name, val);
	snprintf(name, sizeof(name), "%s.nsec", f->name);
	snprintf(val, sizeof(val), "%" PRIu32, nsec);
	fn(arg, name, val);
}

unsigned xc_field_render(const struct xfmt_field *f, const uint8_t *buf, size_t len,
			 const struct xc_field_print_opts *o, xc_field_emit_fn fn, void *arg)
{
	char val[XC_FIELD_VALUE_MAX];
	struct vbuf b = { val, sizeof(val), 0 };
	uint64_t v = 0;

	val[0] = '\0';
	if (f->v5only && o && !o->v5)
		return 0;
	if (f->off > len || len - f->off < f->size) {
		fn(arg, f->name, "<truncated>");
		return 1;
	}
	switch (f->kind) {
	case XFK_TIME:
		format_time(f, xfmt_get_be64(buf + f->off), o && o->bigtime, fn, arg);
		return 2;
	case XFK_UUID:
		if (sizeof(val) >= 37)
			xc_uuid_format(buf + f->off, val);
		break;
	case XFK_CHARS:
		xc_chars_format(buf + f->off, f->size, val, sizeof(val));
		break;
	case XFK_BYTES:
		for (unsigned i = 0; i < f->size; i++)
			vb_add(&b, "%02x", buf[f->off + i]);
		break;
	case XFK_CRC:
		/* xfs_db shows the stored bytes read big-endian. */
		vb_add(&b, "0x%08" PRIx32, xfmt_get_be32(buf + f->off));
		break;
	default:
		if (xfmt_field_get(buf, len, f, &v) != 0) {
			vb_add(&b, "<invalid>");
			break;
		}
		switch (f->kind) {
		case XFK_HEX:
		case XFK_LSN:
			vb_add(&b, "0x%" PRIx64, v);
			break;
		case XFK_OCT:
			vb_add(&b, "0%" PRIo64, v);
			break;
		case XFK_NULLABLE:
			if (all_ones(v, f->size))
				vb_add(&b, "null");
			else
				vb_add(&b, "%" PRIu64, v);
			break;
		case XFK_SINT: {
			int64_t s = f->size >= 8 ? (int64_t)v
				  : (int64_t)(v ^ (1ull << (8 * f->size - 1))) -
				    (int64_t)(1ull << (8 * f->size - 1));
			vb_add(&b, "%" PRId64, s);
			break;
		}
		default:
			vb_add(&b, "%" PRIu64, v);
			break;
		}
	}
	fn(arg, f->name, val);
	return 1;
}

struct print_arg {
	FILE                             *out;
	const struct xfmt_field          *f;
	const struct xc_field_print_opts *o;
};

static void print_pair(void *arg, const char *name, const char *value)
{
	struct print_arg *pa = arg;
	const char *prefix = pa->o && pa->o->prefix ? pa->o->prefix : "";

	fprintf(pa->out, "%s%s = %s", prefix, name, value);
	if (pa->o && pa->o->annotate && pa->f->doc)
		fprintf(pa->out, "    # +0x%x, %u byte%s: %s", pa->f->off, pa->f->size,
			pa->f->size == 1 ? "" : "s", pa->f->doc);
	fputc('\n', pa->out);
}

void xc_field_print(FILE *out, const struct xfmt_field *f, const uint8_t *buf,
		    size_t len, const struct xc_field_print_opts *o)
{
	struct print_arg pa = { out, f, o };

	xc_field_render(f, buf, len, o, print_pair, &pa);
}

void xc_fields_print(FILE *out, const struct xfmt_field *table, const uint8_t *buf,
		     size_t len, const struct xc_field_print_opts *o)
{
	for (; table->name; table++)
		xc_field_print(out, table, buf, len, o);
}
