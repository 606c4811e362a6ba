/*
 * partition.c - GPT and MBR partition tables: parsing, validation, and the
 * choice of the XFS partition of a whole-disk image.
 *
 * Order of detection: a GPT header ("EFI PART") at byte 512, then at byte
 * 4096 (4 KiB logical sectors).  A header found there, or a protective MBR
 * entry (type 0xEE), commits us to GPT: when the primary header or its
 * entries fail their CRC or bounds checks the backup header (at the primary's
 * alternate LBA, else the last sector of the image) is tried, and if both are
 * damaged the table is reported as damaged rather than guessed at.  Without
 * a GPT, an MBR needs the 0x55AA signature and boot flags of 0x00 or 0x80 in
 * all four slots (which rejects FAT and XFS boot sectors).  MBR LBAs are taken
 * in 512-byte sectors.
 *
 * Layouts: UEFI specification 2.x chapter 5 (GPT header and entries, MBR).
 */
#include "analyzer/io/partition.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "formats/endian.h"

/* MBR and EBR layout */
#define MBR_SIZE            512u
#define MBR_DISK_ID_OFF     440u
#define MBR_ENTRIES_OFF     446u
#define MBR_ENTRY_SIZE      16u
#define MBR_SIG_OFF         510u
#define MBR_E_STATUS        0u
#define MBR_E_TYPE          4u
#define MBR_E_LBA           8u
#define MBR_E_NSECT         12u
#define MBR_TYPE_PROTECTIVE 0xEEu
#define MBR_SECTOR          512u

/* GPT header layout */
#define GPT_SIG             "EFI PART"
#define GPT_H_SIG           0u
#define GPT_H_SIZE          12u
#define GPT_H_CRC           16u
#define GPT_H_MY_LBA        24u
#define GPT_H_ALT_LBA       32u
#define GPT_H_FIRST_USABLE  40u
#define GPT_H_LAST_USABLE   48u
#define GPT_H_DISK_GUID     56u
#define GPT_H_ENTRIES_LBA   72u
#define GPT_H_NENTRIES      80u
#define GPT_H_ENTRY_SIZE    84u
#define GPT_H_ENTRIES_CRC   88u
#define GPT_H_MIN_SIZE      92u

/* GPT entry layout */
#define GPT_E_TYPE          0u
#define GPT_E_FIRST_LBA     32u
#define GPT_E_LAST_LBA      40u
#define GPT_E_NAME          56u
#define GPT_E_NAME_UNITS    36u
#define GPT_E_MIN_SIZE      128u

#define XFS_MAGIC           0x58465342u /* "XFSB" */

_Static_assert(MBR_ENTRIES_OFF + 4 * MBR_ENTRY_SIZE == MBR_SIG_OFF, "MBR layout");
_Static_assert(GPT_E_NAME + 2 * GPT_E_NAME_UNITS == GPT_E_MIN_SIZE, "GPT entry layout");
_Static_assert(sizeof(((struct xpart *)0)->name) >= 3 * GPT_E_NAME_UNITS + 1, "name buffer");

uint32_t xpart_crc32(const void *buf, size_t len)
{
	uint32_t table[256];
	const uint8_t *p = buf;
	uint32_t crc = 0xFFFFFFFFu;

	/* A table per call: GPT needs a few CRCs per run, and this keeps the
	 * function free of shared state. */
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
		table[i] = c;
	}
	while (len--)
		crc = table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
	return ~crc;
}

void xpart_guid_str(const uint8_t g[16], char out[37])
{
	/* The first three fields are little-endian on disk, the rest bytes. */
	snprintf(out, 37, "%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X",
		 (unsigned)xfmt_get_le32(g), (unsigned)xfmt_get_le16(g + 4),
		 (unsigned)xfmt_get_le16(g + 6), g[8], g[9], g[10], g[11], g[12],
		 g[13], g[14], g[15]);
}

/* A growable list of partitions; its capacity is bounded by the callers. */
struct plist {
	struct xpart *v;
	int           n, cap;
};

static struct xpart *plist_add(struct plist *l)
{
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 16;
		struct xpart *v = realloc(l->v, (size_t)cap * sizeof(*v));

		if (!v)
			return NULL;
		l->v = v;
		l->cap = cap;
	}
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	return &l->v[l->n++];
}

/* Set start/length from sector numbers, flagging what does not fit. */
static void set_extent(struct xpart *p, uint64_t first_sect, uint64_t nsect,
		       unsigned ss, uint64_t img_size)
{
	if (first_sect > UINT64_MAX / ss || nsect > UINT64_MAX / ss) {
		p->flags |= XPART_F_INVALID | XPART_F_BEYOND_END;
		return;
	}
	p->start = first_sect * ss;
	p->length = nsect * ss;
	if (p->start > img_size || img_size - p->start < p->length)
		p->flags |= XPART_F_BEYOND_END;
}

/* ---- GPT ---- */

/* UTF-16LE name -> UTF-8; unpaired surrogates become '?'. */
static void gpt_name(const uint8_t *src, char *dst, size_t dstlen)
{
	size_t o = 0;

	for (unsigned i = 0; i < GPT_E_NAME_UNITS; i++) {
		uint32_t c = xfmt_get_le16(src + 2 * i);

		if (c == 0)
			break;
		if (c >= 0xD800 && c <= 0xDBFF && i + 1 < GPT_E_NAME_UNITS) {
			uint32_t lo = xfmt_get_le16(src + 2 * (i + 1));

			if (lo >= 0xDC00 && lo <= 0xDFFF) {
				c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
				i++;
			} else {
				c = '?';
			}
		} else if (c >= 0xD800 && c <= 0xDFFF) {
			c = '?';
		}
		if (c < 0x80 && o + 1 < dstlen) {
			dst[o++] = (char)c;
		} else if (c < 0x800 && o + 2 < dstlen) {
			dst[o++] = (char)(0xC0 | c >> 6);
			dst[o++] = (char)(0x80 | (c & 0x3F));
		} else if (c < 0x10000 && o + 3 < dstlen) {
			dst[o++] = (char)(0xE0 | c >> 12);
			dst[o++] = (char)(0x80 | ((c >> 6) & 0x3F));
			dst[o++] = (char)(0x80 | (c & 0x3F));
		} else if (o + 4 < dstlen) {
			dst[o++] = (char)(0xF0 | c >> 18);
			dst[o++] = (char)(0x80 | ((c >> 12) & 0x3F));
			dst[o++] = (char)(0x80 | ((c >> 6) & 0x3F));
			dst[o++] = (char)(0x80 | (c & 0x3F));
		}
	}
	dst[o] = '\0';
}

enum gpt_status { GPT_ABSENT, GPT_BAD, GPT_OK };

struct gpt_hdr {
	uint64_t alt_lba;
	uint64_t entries_lba;
	uint32_t nentries;
	uint32_t entry_size;
	uint32_t entries_crc;
	uint8_t  disk_guid[16];
};

/*
 * Read and check the header at sector lba of size ss.  GPT_ABSENT when the
 * signature is not there; GPT_BAD with a reason in why when it is there but
 * fails a check.
 */
static enum gpt_status gpt_read_header(struct ximg *img, uint64_t lba, unsigned ss,
				       struct gpt_hdr *h, char *why, size_t whylen)
{
	uint8_t *buf;
	uint32_t hsize, crc;
	enum gpt_status st = GPT_BAD;

	if (img->size / ss == 0 || lba > img->size / ss - 1)
		return GPT_ABSENT;
	buf = malloc(ss);
	if (!buf) {
		snprintf(why, whylen, "out of memory");
		return GPT_BAD;
	}
	if (ximg_pread(img, buf, ss, lba * ss) != 0) {
		snprintf(why, whylen, "cannot read sector %llu", (unsigned long long)lba);
		goto out;
	}
	if (memcmp(buf + GPT_H_SIG, GPT_SIG, 8) != 0) {
		st = GPT_ABSENT;
		goto out;
	}
	hsize = xfmt_get_le32(buf + GPT_H_SIZE);
	if (hsize < GPT_H_MIN_SIZE || hsize > ss) {
		snprintf(why, whylen, "header size %u is invalid", (unsigned)hsize);
		goto out;
	}
	crc = xfmt_get_le32(buf + GPT_H_CRC);
	memset(buf + GPT_H_CRC, 0, 4);
	if (xpart_crc32(buf, hsize) != crc) {
		snprintf(why, whylen, "header CRC mismatch");
		goto out;
	}
	if (xfmt_get_le64(buf + GPT_H_MY_LBA) != lba) {
		snprintf(why, whylen, "header says it is at LBA %llu, found at LBA %llu",
			 (unsigned long long)xfmt_get_le64(buf + GPT_H_MY_LBA),
			 (unsigned long long)lba);
		goto out;
	}
	h->alt_lba = xfmt_get_le64(buf + GPT_H_ALT_LBA);
	h->entries_lba = xfmt_get_le64(buf + GPT_H_ENTRIES_LBA);
	h->nentries = xfmt_get_le32(buf + GPT_H_NENTRIES);
	h->entry_size = xfmt_get_le32(buf + GPT_H_ENTRY_SIZE);
	h->entries_crc = xfmt_get_le32(buf + GPT_H_ENTRIES_CRC);
	memcpy(h->disk_guid, buf + GPT_H_DISK_GUID, 16);
	/* UEFI: entry size is 128 * 2^n. */
	if (h->entry_size < GPT_E_MIN_SIZE || h->entry_size > XPART_GPT_MAX_ENTRY ||
	    (h->entry_size & (h->entry_size - 1)) != 0) {
		snprintf(why, whylen, "partition entry size %u is invalid", (unsigned)h->entry_size);
		goto out;
	}
	if (h->nentries > XPART_GPT_MAX_ARRAY / h->entry_size) {
		snprintf(why, whylen, "%u partition entries of %u bytes exceed the %u-byte limit",
			 (unsigned)h->nentries, (unsigned)h->entry_size, XPART_GPT_MAX_ARRAY);
		goto out;
	}
	if (h->entries_lba > img->size / ss ||
	    img->size - h->entries_lba * ss < (uint64_t)h->nentries * h->entry_size) {
		snprintf(why, whylen, "partition entries at LBA %llu lie beyond the end of the image",
			 (unsigned long long)h->entries_lba);
		goto out;
	}
	st = GPT_OK;
out:
	free(buf);
	return st;
}

/* Read the entries array of h, check its CRC, and append used entries. */
static int gpt_read_entries(struct ximg *img, unsigned ss, const struct gpt_hdr *h,
			    struct plist *l, char *why, size_t whylen)
{
	size_t bytes = (size_t)h->nentries * h->entry_size;
	uint8_t *arr = malloc(bytes ? bytes : 1);
	int rc = 0;

	if (!arr) {
		snprintf(why, whylen, "out of memory");
		return XERR_NOMEM;
	}
	rc = ximg_pread(img, arr, bytes, h->entries_lba * ss);
	if (rc) {
		snprintf(why, whylen, "cannot read the partition entries");
		goto out;
	}
	if (xpart_crc32(arr, bytes) != h->entries_crc) {
		snprintf(why, whylen, "partition entries CRC mismatch");
		rc = XERR_FORMAT;
		goto out;
	}
	for (uint32_t i = 0; i < h->nentries; i++) {
		const uint8_t *e = arr + (size_t)i * h->entry_size;
		static const uint8_t zero[16];
		uint64_t first, last;
		struct xpart *p;

		if (memcmp(e + GPT_E_TYPE, zero, 16) == 0)
			continue;  /* unused entry */
		p = plist_add(l);
		if (!p) {
			snprintf(why, whylen, "out of memory");
			rc = XERR_NOMEM;
			goto out;
		}
		p->index = (int)i + 1;
		p->is_gpt = 1;
		memcpy(p->type_guid, e + GPT_E_TYPE, 16);
		gpt_name(e + GPT_E_NAME, p->name, sizeof(p->name));
		first = xfmt_get_le64(e + GPT_E_FIRST_LBA);
		last = xfmt_get_le64(e + GPT_E_LAST_LBA);
		if (first > last || last == UINT64_MAX) {
			p->flags |= XPART_F_INVALID;
			continue;
		}
		set_extent(p, first, last - first + 1, ss, img->size);
	}
out:
	free(arr);
	return rc;
}

/*
 * Try the primary GPT at LBA 1 for sector size ss, then its backup.
 * Returns 1 (found and valid; l filled), 0 (no GPT signature at all for ss),
 * or a negative xerr with why set (a GPT is there but damaged).
 */
static int gpt_try(struct ximg *img, unsigned ss, int protective,
		   struct xpart_table *tab, struct plist *l, char *why, size_t whylen)
{
	struct gpt_hdr h;
	char pwhy[160] = "", bwhy[160] = "";
	enum gpt_status st;
	uint64_t backup_lba, last_lba;
	int rc, primary_seen;

	st = gpt_read_header(img, 1, ss, &h, pwhy, sizeof(pwhy));
	primary_seen = st != GPT_ABSENT;
	if (st == GPT_OK) {
		rc = gpt_read_entries(img, ss, &h, l, pwhy, sizeof(pwhy));
		if (rc == 0)
			goto found;
		if (rc == XERR_NOMEM) {
			snprintf(why, whylen, "%s", pwhy);
			return rc;
		}
		l->n = 0;
	}
	if (!primary_seen && !protective)
		return 0;
	if (!primary_seen)
		snprintf(pwhy, sizeof(pwhy), "no primary GPT header at byte %u", ss);

	/* The backup: where the primary says, else at the last sector. */
	last_lba = img->size / ss ? img->size / ss - 1 : 0;
	backup_lba = (st == GPT_OK && h.alt_lba > 1 && h.alt_lba <= last_lba) ? h.alt_lba : last_lba;
	st = gpt_read_header(img, backup_lba, ss, &h, bwhy, sizeof(bwhy));
	if (st == GPT_ABSENT && backup_lba != last_lba)
		st = gpt_read_header(img, backup_lba = last_lba, ss, &h, bwhy, sizeof(bwhy));
	if (st == GPT_OK) {
		rc = gpt_read_entries(img, ss, &h, l, bwhy, sizeof(bwhy));
		if (rc == 0) {
			tab->anomalies |= XPART_T_GPT_BACKUP;
			goto found;
		}
		if (rc == XERR_NOMEM) {
			snprintf(why, whylen, "%s", bwhy);
			return rc;
		}
		l->n = 0;
	} else if (st == GPT_ABSENT) {
		snprintf(bwhy, sizeof(bwhy), "no backup header at LBA %llu",
			 (unsigned long long)backup_lba);
	}
	if (!primary_seen) {
		if (ss != 4096)
			return 0;  /* protective MBR: let the caller try 4 KiB sectors too */
		snprintf(why, whylen, "protective MBR (type 0xEE) but no valid GPT header at "
			 "byte 512 or 4096 nor a backup GPT header at the end of the image");
		return XERR_FORMAT;
	}
	snprintf(why, whylen, "damaged GPT (%u-byte sectors): primary: %s; backup: %s",
		 ss, pwhy, bwhy);
	return XERR_FORMAT;

found:
	tab->kind = XPART_GPT;
	tab->sector_size = ss;
	memcpy(tab->disk_guid, h.disk_guid, 16);
	return 1;
}

/* ---- MBR ---- */

static int mbr_is_extended(uint8_t type)
{
	return type == 0x05 || type == 0x0F || type == 0x85;
}

/* Follow the EBR chain of the extended partition at ext (LBA) of nsect sectors. */
static int mbr_logicals(struct ximg *img, uint64_t ext, uint64_t ext_nsect,
			struct xpart_table *tab, struct plist *l, char *why, size_t whylen)
{
	uint64_t visited[XPART_MAX_LOGICAL];
	uint8_t ebr[MBR_SIZE];
	uint64_t cur = ext;
	int nvisited = 0, number = 5;

	for (;;) {
		const uint8_t *e0 = ebr + MBR_ENTRIES_OFF, *e1 = e0 + MBR_ENTRY_SIZE;
		uint64_t rel_next;

		for (int i = 0; i < nvisited; i++) {
			if (visited[i] == cur) {
				tab->anomalies |= XPART_T_EBR_LOOP;
				return 0;
			}
		}
		if (nvisited == XPART_MAX_LOGICAL) {
			tab->anomalies |= XPART_T_EBR_TOO_MANY;
			return 0;
		}
		visited[nvisited++] = cur;
		if (cur > (UINT64_MAX - MBR_SIZE) / MBR_SECTOR ||
		    ximg_pread(img, ebr, MBR_SIZE, cur * MBR_SECTOR) != 0 ||
		    ebr[MBR_SIG_OFF] != 0x55 || ebr[MBR_SIG_OFF + 1] != 0xAA) {
			tab->anomalies |= XPART_T_EBR_BROKEN;
			return 0;
		}
		if (e0[MBR_E_TYPE] != 0 && xfmt_get_le32(e0 + MBR_E_NSECT) != 0) {
			struct xpart *p = plist_add(l);

			if (!p) {
				snprintf(why, whylen, "out of memory");
				return XERR_NOMEM;
			}
			p->index = number++;
			p->mbr_type = e0[MBR_E_TYPE];
			p->flags = XPART_F_LOGICAL;
			/* A logical partition starts relative to its own EBR. */
			set_extent(p, cur + xfmt_get_le32(e0 + MBR_E_LBA),
				   xfmt_get_le32(e0 + MBR_E_NSECT), MBR_SECTOR, img->size);
		}
		if (!mbr_is_extended(e1[MBR_E_TYPE]))
			return 0;  /* end of chain */
		/* The next EBR is relative to the start of the extended partition. */
		rel_next = xfmt_get_le32(e1 + MBR_E_LBA);
		if (rel_next >= ext_nsect) {
			tab->anomalies |= XPART_T_EBR_BROKEN;
			return 0;
		}
		cur = ext + rel_next;
	}
}

/* 1 when sector 0 is an MBR (signature and sane boot flags), else 0. */
static int mbr_valid(const uint8_t *mbr)
{
	if (mbr[MBR_SIG_OFF] != 0x55 || mbr[MBR_SIG_OFF + 1] != 0xAA)
		return 0;
	for (unsigned i = 0; i < 4; i++) {
		uint8_t st = mbr[MBR_ENTRIES_OFF + i * MBR_ENTRY_SIZE + MBR_E_STATUS];

		if (st != 0x00 && st != 0x80)
			return 0;
	}
	return 1;
}

static int mbr_parse(struct ximg *img, const uint8_t *mbr, struct xpart_table *tab,
		     struct plist *l, char *why, size_t whylen)
{
	int ext_done = 0;

	tab->kind = XPART_MBR;
	tab->sector_size = MBR_SECTOR;
	tab->mbr_disk_id = xfmt_get_le32(mbr + MBR_DISK_ID_OFF);
	for (unsigned i = 0; i < 4; i++) {
		const uint8_t *e = mbr + MBR_ENTRIES_OFF + i * MBR_ENTRY_SIZE;
		struct xpart *p;

		if (e[MBR_E_TYPE] == 0 || xfmt_get_le32(e + MBR_E_NSECT) == 0)
			continue;
		p = plist_add(l);
		if (!p) {
			snprintf(why, whylen, "out of memory");
			return XERR_NOMEM;
		}
		p->index = (int)i + 1;
		p->mbr_type = e[MBR_E_TYPE];
		set_extent(p, xfmt_get_le32(e + MBR_E_LBA), xfmt_get_le32(e + MBR_E_NSECT),
			   MBR_SECTOR, img->size);
		if (mbr_is_extended(e[MBR_E_TYPE]))
			p->flags |= XPART_F_EXTENDED;
	}
	/* Logicals come after all primaries in numbering; follow the first
	 * extended partition only, as fdisk does. */
	for (int i = 0, n = l->n; i < n && !ext_done; i++) {
		if (l->v[i].flags & XPART_F_EXTENDED) {
			int rc = mbr_logicals(img, l->v[i].start / MBR_SECTOR,
					      l->v[i].length / MBR_SECTOR, tab, l, why, whylen);
			if (rc)
				return rc;
			ext_done = 1;
		}
	}
	return 0;
}

/* Flag partitions that share bytes (an extended container and its logicals do not count). */
static void flag_overlaps(struct plist *l)
{
	for (int i = 0; i < l->n; i++) {
		struct xpart *a = &l->v[i];

		if (a->flags & (XPART_F_EXTENDED | XPART_F_INVALID) || a->length == 0)
			continue;
		for (int j = i + 1; j < l->n; j++) {
			struct xpart *b = &l->v[j];

			if (b->flags & (XPART_F_EXTENDED | XPART_F_INVALID) || b->length == 0)
				continue;
			/* Lengths may be unchecked against the image: compare
			 * without forming start + length. */
			if (a->start < b->start ? b->start - a->start < a->length
						: a->start - b->start < b->length) {
				a->flags |= XPART_F_OVERLAP;
				b->flags |= XPART_F_OVERLAP;
			}
		}
	}
}

/* Parse the table of img into tab and l (l->v owned by the caller). */
static int table_parse(struct ximg *img, struct xpart_table *tab, struct plist *l,
		       char *why, size_t whylen)
{
	uint8_t mbr[MBR_SIZE];
	int have_mbr = 0, protective = 0, rc;

	memset(tab, 0, sizeof(*tab));
	why[0] = '\0';
	if (img->size >= MBR_SIZE && ximg_pread(img, mbr, MBR_SIZE, 0) == 0 && mbr_valid(mbr)) {
		have_mbr = 1;
		for (unsigned i = 0; i < 4; i++)
			if (mbr[MBR_ENTRIES_OFF + i * MBR_ENTRY_SIZE + MBR_E_TYPE] == MBR_TYPE_PROTECTIVE)
				protective = 1;
	}
	rc = gpt_try(img, 512, protective, tab, l, why, whylen);
	if (rc == 0)
		rc = gpt_try(img, 4096, protective, tab, l, why, whylen);
	if (rc < 0)
		return rc;
	if (rc == 0 && have_mbr) {
		rc = mbr_parse(img, mbr, tab, l, why, whylen);
		if (rc)
			return rc;
	}
	flag_overlaps(l);
	tab->count = l->n;
	return 0;
}

int xpart_list(struct ximg *img, struct xpart_table *tab, struct xpart *out, int max,
	       char *err, size_t errlen)
{
	struct plist l = { 0 };
	char why[256];
	int rc = table_parse(img, tab, &l, why, sizeof(why));

	if (rc) {
		snprintf(err, errlen, "%s: %s", img->name, why);
		free(l.v);
		return rc;
	}
	for (int i = 0; i < l.n && i < max; i++)
		out[i] = l.v[i];
	free(l.v);
	return tab->count;
}

/* The error for a partition that cannot be used as a whole. */
static int part_unusable(struct ximg *img, const struct xpart *p, char *err, size_t errlen)
{
	if (p->flags & XPART_F_INVALID) {
		snprintf(err, errlen, "%s: partition %d has an invalid entry (first sector after last)",
			 img->name, p->index);
		return XERR_FORMAT;
	}
	if (p->start >= img->size) {
		snprintf(err, errlen, "%s: partition %d extends beyond the end of the image "
			 "(it starts at byte %llu; the image has %llu bytes)", img->name, p->index,
			 (unsigned long long)p->start, (unsigned long long)img->size);
		return XERR_TRUNCATED;
	}
	snprintf(err, errlen, "%s: partition %d extends beyond the end of the image "
		 "(%llu bytes at byte %llu; the image has %llu; --offset %llu reads what is there)",
		 img->name, p->index, (unsigned long long)p->length, (unsigned long long)p->start,
		 (unsigned long long)img->size, (unsigned long long)p->start);
	return XERR_TRUNCATED;
}

int xpart_find_xfs(struct ximg *img, int want, struct xpart *out,
		   char *err, size_t errlen)
{
	struct xpart_table tab;
	struct plist l = { 0 };
	char why[256];
	int rc = table_parse(img, &tab, &l, why, sizeof(why));

	if (rc) {
		snprintf(err, errlen, "%s: %s", img->name, why);
		goto out;
	}
	if (tab.kind == XPART_NONE) {
		if (want > 0) {
			snprintf(err, errlen, "%s: partition %d does not exist (no partition table)",
				 img->name, want);
			rc = XERR_USAGE;
		} else {
			snprintf(err, errlen, "%s: not an XFS filesystem: no partition table and "
				 "no XFS superblock at byte 0", img->name);
			rc = XERR_NOTXFS;
		}
		goto out;
	}
	if (want > 0) {
		for (int i = 0; i < l.n; i++) {
			if (l.v[i].index != want)
				continue;
			if (l.v[i].flags & (XPART_F_INVALID | XPART_F_BEYOND_END)) {
				rc = part_unusable(img, &l.v[i], err, errlen);
				goto out;
			}
			*out = l.v[i];
			goto out;
		}
		snprintf(err, errlen, "%s: partition %d does not exist (%s table with %d partitions)",
			 img->name, want, tab.kind == XPART_GPT ? "GPT" : "MBR", l.n);
		rc = XERR_USAGE;
		goto out;
	}
	for (int i = 0; i < l.n; i++) {
		const struct xpart *p = &l.v[i];
		uint8_t magic[4];

		if (p->flags & (XPART_F_EXTENDED | XPART_F_INVALID) || p->length < sizeof(magic) ||
		    img->size < sizeof(magic) || p->start > img->size - sizeof(magic))
			continue;
		if (ximg_pread(img, magic, sizeof(magic), p->start) != 0 ||
		    xfmt_get_be32(magic) != XFS_MAGIC)
			continue;
		if (p->flags & XPART_F_BEYOND_END) {
			rc = part_unusable(img, p, err, errlen);
			goto out;
		}
		*out = *p;
		goto out;
	}
	snprintf(err, errlen, "%s: not an XFS filesystem: no XFS superblock in any of the %d "
		 "partitions of its %s table", img->name, l.n, tab.kind == XPART_GPT ? "GPT" : "MBR");
	rc = XERR_NOTXFS;
out:
	free(l.v);
	return rc;
}
