/*
 * xml_writer.c - shared XML writing helpers (see xml_writer.h).
 */
#include "analyzer/report/xml_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/errors.h"
#include "analyzer/findings/findings.h"
#include "analyzer/io/outpath.h"
#include "analyzer/report/escape.h"


/* libxml2 speaks unsigned char; its BAD_CAST would also drop const. */
const xmlChar *xa_xc(const char *s)
{
	return (const xmlChar *)s;
}


void xa_xw_check(struct xa_xw *x, int rc)
{
	if (rc < 0)
		x->failed = true;
}

void xa_xw_start(struct xa_xw *x, const char *name)
{
	if (!x->failed)
		xa_xw_check(x, xmlTextWriterStartElement(x->w, xa_xc(name)));
}

void xa_xw_end(struct xa_xw *x)
{
	if (!x->failed)
		xa_xw_check(x, xmlTextWriterEndElement(x->w));
}

/* s must already be valid UTF-8 (a literal, a number, or escaped bytes). */
void xa_xw_attr(struct xa_xw *x, const char *name, const char *s)
{
	if (!x->failed)
		xa_xw_check(x, xmlTextWriterWriteAttribute(x->w, xa_xc(name), xa_xc(s)));
}

/* An attribute holding hostile bytes: escaped to safe UTF-8 first. */
void xa_xw_attr_bytes(struct xa_xw *x, const char *name, const void *bytes, size_t len)
{
	char *s;

	if (x->failed)
		return;
	s = xa_escape_text(bytes, len);
	if (!s) {
		x->failed = true;
		return;
	}
	xa_xw_attr(x, name, s);
	free(s);
}

void xa_xw_attr_u64(struct xa_xw *x, const char *name, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	xa_xw_attr(x, name, num);
}

void xa_xw_attr_hex32(struct xa_xw *x, const char *name, uint32_t v)
{
	char num[16];

	snprintf(num, sizeof(num), "0x%" PRIx32, v);
	xa_xw_attr(x, name, num);
}

void xa_xw_attr_bool(struct xa_xw *x, const char *name, bool v)
{
	xa_xw_attr(x, name, v ? "true" : "false");
}

void xa_xw_attr_uuid(struct xa_xw *x, const char *name, const uint8_t u[16])
{
	char s[40];

	snprintf(s, sizeof(s),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
		 u[11], u[12], u[13], u[14], u[15]);
	xa_xw_attr(x, name, s);
}

void xa_xw_attr_sha256(struct xa_xw *x, const char *name, const uint8_t h[32])
{
	char hex[65];

	for (unsigned i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", h[i]);
	xa_xw_attr(x, name, hex);
}

void xa_xw_finding(struct xa_xw *x, const struct xa_finding *fd, const char *id_attr)
{
	const struct xprob *p = &fd->p;
	const char *id = xprob_id(p->code);
	char code[16], msg[XA_XML_MSG_MAX];

	snprintf(code, sizeof(code), "0x%04X", (unsigned)p->code);
	xa_xw_start(x, "finding");
	if (id_attr)
		xa_xw_attr(x, "ref", id_attr);
	xa_xw_attr(x, "code", code);
	/* A code missing from the table is a bug, but the report still says so. */
	xa_xw_attr(x, "id", id ? id : "unknown");
	xa_xw_attr(x, "severity", xprob_severity_name(xprob_severity_of(p->code)));
	xa_xw_attr(x, "fix", xprob_fix_name(xprob_fix_of(p->code)));
	if (fd->what && fd->what[0])
		xa_xw_attr_bytes(x, "structure", fd->what, strlen(fd->what));
	if (p->has & XPROB_HAS_AG)
		xa_xw_attr_u64(x, "ag", p->agno);
	if (p->has & XPROB_HAS_AGBNO)
		xa_xw_attr_u64(x, "agbno", p->agbno);
	if (p->has & XPROB_HAS_INO)
		xa_xw_attr_u64(x, "ino", p->ino);
	if (p->has & XPROB_HAS_BYTE)
		xa_xw_attr_u64(x, "byte", p->byte);
	if (p->has & XPROB_HAS_OFF)
		xa_xw_attr_u64(x, "offset", p->off);
	if (p->field)
		xa_xw_attr_bytes(x, "field", p->field, strlen(p->field));
	if (p->has & XPROB_HAS_EXPECTED)
		xa_xw_attr_u64(x, "expected", p->expected);
	if (p->has & XPROB_HAS_OBSERVED)
		xa_xw_attr_u64(x, "observed", p->observed);
	if (p->has & XPROB_HAS_OWNERS) {
		static const char *const names[2][3] = {
			{ "owner", "fork", "fileOffset" }, { "owner2", "fork2", "fileOffset2" },
		};

		for (int k = 0; k < 2; k++) {
			const struct xprob_owner *o = &p->owners[k];
			const char *fork = xa_owner_fork(o);
			char own[32];

			xa_owner_format(o->owner, own, sizeof(own));
			xa_xw_attr(x, names[k][0], own);
			if (fork)
				xa_xw_attr(x, names[k][1], fork);
			if (fork && !(o->flags & XPROB_OWN_BMBT))
				xa_xw_attr_u64(x, names[k][2], o->offset);
		}
	}
	xa_finding_render(fd, msg, sizeof(msg));
	if (!x->failed) {
		/* Messages are ASCII today; escaping keeps that true when names join them. */
		char *safe = xa_escape_text(msg, strlen(msg));

		if (!safe)
			x->failed = true;
		else
			xa_xw_check(x, xmlTextWriterWriteString(x->w, xa_xc(safe)));
		free(safe);
	}
	xa_xw_end(x);
}

/* ------------------------------------------------------------ output file */

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Write data to path through ximg_out_open (never over the image or what
 * aliases it); with excl an existing path is refused unless force, without
 * it an existing regular file is replaced.  what names the document. */
static int save_file(const char *image_path, int image_fd, const char *path,
		     const uint8_t *data, size_t len, bool excl, bool force, const char *what,
		     char *err, size_t errlen)
{
	struct ximg_out_opts oo = {
		.what = what, .in_fd = image_fd, .in_fd_set = image_fd >= 0, .force = force,
		.replace = !excl, .stream_ok = true, .truncate = true, .mode = 0644,
	};
	bool created, blk;
	int fd, rc = 0;

	if (!strcmp(path, "-")) {
		if (write_all(STDOUT_FILENO, data, len)) {
			snprintf(err, errlen, "writing %s to standard output: %s", what,
				 strerror(errno));
			return XERR_IO;
		}
		return 0;
	}
	oo.in_path[0] = image_path;
	rc = ximg_out_open(path, &oo, &fd, &created, &blk, err, errlen);
	if (rc)
		return rc;
	if (write_all(fd, data, len)) {
		snprintf(err, errlen, "%s: writing %s: %s", path, what, strerror(errno));
		rc = XERR_IO;
	}
	if (close(fd) != 0 && !rc) {
		snprintf(err, errlen, "%s: writing %s: %s", path, what, strerror(errno));
		rc = XERR_IO;
	}
	/* A half-written document we created must not pass for one. */
	if (rc && created)
		unlink(path);
	return rc;
}

int xa_xml_save(const char *image_path, int image_fd, const char *path, const uint8_t *data,
		size_t len, char *err, size_t errlen)
{
	return save_file(image_path, image_fd, path, data, len, false, false, "the report", err,
			 errlen);
}

int xa_xml_save_new(const char *image_path, int image_fd, const char *path, const uint8_t *data,
		    size_t len, bool force, const char *what, char *err, size_t errlen)
{
	return save_file(image_path, image_fd, path, data, len, true, force, what, err, errlen);
}
