/*
 * map_grid.h - what the block-ownership picture (`xfsrecon map`) shows of
 * one AG, before any drawing: owner classes, exact per-class block totals,
 * and the AG reduced to a grid of cells of equal size, each with its block
 * count per class, its first few owners and the marks of damage on it.
 *
 * The grid is bounded whatever the image holds: the caller chooses the
 * columns and the most rows, and a cell holds as many blocks as needed for
 * the AG to fit.  Totals are exact sums of the records' lengths (clipped to
 * the AG), so they equal what fsmap lists; a block shared by several owners
 * (reflink) counts once per owner, as in fsmap.  Cells are summaries: their
 * owner lists and finding lists are capped, and the work spent filling them
 * is bounded too (past the bound the lists stop growing and the AG says so).
 */
#ifndef XC_MAP_GRID_H
#define XC_MAP_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xa_ownlist;

/* Owner classes, in legend order.  Inode-owned blocks are classed by the
 * record's flags first (bmbt, attr fork), then by the owning inode's mode. */
enum xc_map_class {
	XC_MC_FS,           /* OWN_FS: superblock and AG header sectors */
	XC_MC_AGSPACE,      /* OWN_AG: bnobt, cntbt, rmapbt blocks and the AGFL's blocks */
	XC_MC_INOBT,        /* OWN_INOBT: inobt and finobt */
	XC_MC_REFCBT,       /* OWN_REFC: refcountbt */
	XC_MC_INODES,       /* OWN_INODES: inode chunks */
	XC_MC_LOG,          /* OWN_LOG: internal log */
	XC_MC_COW,          /* OWN_COW: copy-on-write staging extents */
	XC_MC_DATA,         /* data fork of a regular file */
	XC_MC_DIR,          /* data fork of a directory */
	XC_MC_SYMLINK,      /* data fork of a symbolic link (remote target) */
	XC_MC_XATTR,        /* attr fork blocks */
	XC_MC_BMBT,         /* bmbt blocks of either fork (their own class) */
	XC_MC_INODE_OTHER,  /* an inode whose type is unknown (not read, or odd mode) */
	XC_MC_OTHER,        /* a special owner with no name */
	XC_MC_FREE,         /* free: in the bnobt */
	XC_MC_UNACCOUNTED,  /* neither free nor owned by anyone */
	XC_MC_COUNT
};

struct xc_map_class_info {
	const char *id;      /* short machine name: "fs", "data", ... */
	const char *label;   /* legend text */
	const char *color;   /* SVG fill, "#rrggbb" */
};

/* Name, legend text and colour of class c (c < XC_MC_COUNT). */
const struct xc_map_class_info *xc_map_class_info(enum xc_map_class c);

/* A damaged or disputed block range of the AG and why (a finding code, or 0
 * for a double claim found while building the grid). */
struct xc_map_mark {
	uint32_t agbno;
	uint32_t len;
	uint16_t code;
};

#define XC_MAP_CELL_OWNERS 4
#define XC_MAP_CELL_CODES  3

struct xc_map_cell {
	uint64_t n[XC_MC_COUNT];                  /* blocks per class */
	uint64_t owner[XC_MAP_CELL_OWNERS];       /* first owners met, in key order */
	uint8_t  oflags[XC_MAP_CELL_OWNERS];      /* their XA_OWN_ATTR / XA_OWN_BMBT */
	uint8_t  nowners;
	bool     more_owners;                     /* further owners not listed */
	bool     marked;                          /* a finding or a dispute touches it */
	bool     disputed;                        /* a block of it is claimed twice */
	uint8_t  ncodes;
	bool     more_codes;
	uint16_t codes[XC_MAP_CELL_CODES];        /* finding codes (0 = double claim) */
	uint8_t  cls;                             /* majority class (enum xc_map_class) */
};

struct xc_map_ag {
	uint32_t agno;
	uint32_t length;             /* blocks in the AG */
	uint32_t cell_blocks;        /* blocks per cell (the last cell may hold fewer) */
	uint32_t cols, rows, ncells;
	uint64_t total[XC_MC_COUNT]; /* exact blocks per class */
	uint64_t disputed_blocks;    /* blocks claimed by two owners that may not share */
	uint64_t outside_blocks;     /* record blocks past the AG's end (not drawn) */
	bool     lists_capped;       /* some cell's owner or finding list stopped early */
	struct xc_map_cell *cells;   /* ncells, row by row */
};

/* Where the grid's data comes from. */
struct xc_map_src {
	const struct xa_ownlist *owners;  /* rmap-shaped owner records, any order */
	const struct xa_ownlist *free;    /* free extents (owner unused); may be NULL */
	bool reflink;                     /* file data may be shared between inodes */
	/* The class of an inode's plain fork blocks (not bmbt, not attr):
	 * XC_MC_DATA, _DIR, _SYMLINK or _INODE_OTHER. */
	enum xc_map_class (*inode_class)(void *arg, uint64_t ino);
	void *arg;
	const struct xc_map_mark *marks;  /* finding ranges in this AG */
	size_t nmarks;
};

/* Blocks in cell idx of m (the last cell may be short). */
uint32_t xc_map_cell_size(const struct xc_map_ag *m, uint32_t idx);

/*
 * Reduce AG agno of length blocks to a grid of cols columns and at most
 * max_rows rows (both at least 1) from src.  m is overwritten; release it
 * with xc_map_ag_release.  Returns 0 or XERR_NOMEM.
 */
int xc_map_ag_build(struct xc_map_ag *m, uint32_t agno, uint32_t length, uint32_t cols,
		    uint32_t max_rows, const struct xc_map_src *src);

/* Free the cells; m is empty afterwards. */
void xc_map_ag_release(struct xc_map_ag *m);

/* The class of one owner record (special owners by name, inode records
 * by flags, then through src->inode_class). */
enum xc_map_class xc_map_classify(const struct xc_map_src *src, uint64_t owner, uint32_t flags);

#endif /* XC_MAP_GRID_H */
