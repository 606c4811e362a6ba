/*
 * partition.h - GPT and MBR partition tables in whole-disk images.
 *
 * Numbering follows fdisk: MBR primary slots are 1-4 (an empty slot keeps its
 * number), logical partitions inside an extended one count from 5 in chain
 * order; GPT partition N is entry N-1 of the entries array.  Every number
 * read from a table is treated as hostile: entry sizes and counts are
 * bounded, CRCs are checked, the chain of extended boot records is bounded
 * and loop-checked, and a partition reaching past the end of the image is
 * flagged rather than trusted.
 */
#ifndef XA_PARTITION_H
#define XA_PARTITION_H

#include <stddef.h>
#include <stdint.h>

struct ximg;

/* struct xpart.flags */
#define XPART_F_BEYOND_END 0x1u  /* ends (or starts) past the end of the image */
#define XPART_F_OVERLAP    0x2u  /* overlaps another partition of the table */
#define XPART_F_LOGICAL    0x4u  /* MBR logical partition (number >= 5) */
#define XPART_F_EXTENDED   0x8u  /* MBR extended container: holds logicals, never a filesystem */
#define XPART_F_INVALID    0x10u /* GPT entry with first LBA > last LBA, or LBAs that overflow */

struct xpart {
	int      index;    /* 1-based, as fdisk numbers them */
	uint64_t start;    /* byte offset in the image */
	uint64_t length;   /* bytes */
	int      is_gpt;
	uint32_t flags;          /* XPART_F_* */
	uint8_t  mbr_type;       /* MBR system id (0x83 Linux, 0x05 extended...); 0 for GPT */
	uint8_t  type_guid[16];  /* GPT partition type GUID, bytes as stored; zero for MBR */
	char     name[112];      /* GPT partition name as UTF-8; "" for MBR */
};

enum xpart_kind { XPART_NONE = 0, XPART_MBR = 1, XPART_GPT = 2 };

/* struct xpart_table.anomalies: things wrong with the table itself. */
#define XPART_T_GPT_BACKUP   0x1u /* primary GPT header or entries damaged; the backup was used */
#define XPART_T_EBR_LOOP     0x2u /* the extended boot record chain loops back on itself */
#define XPART_T_EBR_BROKEN   0x4u /* an EBR is unreadable, lacks 0x55AA or points outside */
#define XPART_T_EBR_TOO_MANY 0x8u /* more logical partitions than XPART_MAX_LOGICAL */

#define XPART_MAX_LOGICAL     128        /* logical partitions followed in an EBR chain */
#define XPART_GPT_MAX_ARRAY   (1u << 20) /* bytes of GPT entries array accepted */
#define XPART_GPT_MAX_ENTRY   4096u      /* largest GPT entry size accepted */

struct xpart_table {
	enum xpart_kind kind;
	unsigned sector_size;  /* 512, or 4096 for a GPT found at byte 4096 */
	uint32_t anomalies;    /* XPART_T_* */
	int      count;        /* partitions in the table (used entries only) */
	uint8_t  disk_guid[16]; /* GPT disk GUID, bytes as stored */
	uint32_t mbr_disk_id;  /* MBR disk signature at byte 440 */
};

/*
 * Find the XFS partition of a whole-disk image.  With want == 0, the first
 * partition whose first sector holds an XFS superblock magic; with want > 0,
 * partition number want (which must exist and lie inside the image).  Returns
 * 0, or a negative xerr with a one-line reason in err: XERR_NOTXFS when there
 * is no table and no XFS partition, XERR_USAGE when partition want does not
 * exist, XERR_TRUNCATED when it extends beyond the end of the image,
 * XERR_FORMAT when the table is damaged beyond use.
 */
int xpart_find_xfs(struct ximg *img, int want, struct xpart *out,
		   char *err, size_t errlen);

/*
 * Read the partition table of img into *tab and the first max partitions
 * (in number order) into out (which may be NULL when max == 0).  Returns the
 * number of partitions in the table (which may exceed max; 0 with kind
 * XPART_NONE when there is no table), or a negative xerr with a reason in
 * err: XERR_FORMAT for a GPT whose primary and backup copies are both
 * damaged, XERR_NOMEM, XERR_IO.
 */
int xpart_list(struct ximg *img, struct xpart_table *tab, struct xpart *out, int max,
	       char *err, size_t errlen);

/* The CRC-32 used by GPT (zlib's crc32: reflected 0xEDB88320, inverted). */
uint32_t xpart_crc32(const void *buf, size_t len);

/* Text form of a GPT GUID (mixed-endian as stored) in out (37 bytes). */
void xpart_guid_str(const uint8_t guid[16], char out[37]);

#endif /* XA_PARTITION_H */
