/*
 * harness.h - helpers shared by the libFuzzer targets in tests/fuzz/.
 *
 * Owns: the checking findings sink (every code a verifier reports must be a
 * row of problems.def), exact-size heap copies (so AddressSanitizer sees
 * every read past a structure), field-table sweeps, the built-in geometries
 * and the "geometry header" that the AG-header, btree and inode targets put
 * in front of their payload:
 *
 *   byte 0 <  0x80: geometry preset byte0 % FZ_NPRESETS, payload from byte 1
 *   byte 0 >= 0x80: a superblock structure (XFS_SB_STRUCT_SIZE bytes) follows
 *                   and gives the geometry; payload after it.  An input whose
 *                   superblock is not sane enough for address arithmetic is
 *                   skipped, as the analyzer would skip it.
 *
 * Nothing here is part of xfsrecon: it is test scaffolding.
 */
#ifndef XFZ_HARNESS_H
#define XFZ_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/field.h"
#include "formats/geom.h"
#include "formats/problem.h"

/* The libFuzzer entry point every target defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A sink that validates each finding and counts them. */
struct fz_sink {
	struct xprob_sink sink;
	uint64_t          count;
};
void fz_sink_init(struct fz_sink *s);

/* Abort (a crash libFuzzer records) with a message: an invariant broke. */
_Noreturn void fz_fail(const char *what, unsigned long long a, unsigned long long b);

/*
 * Copy len bytes of src into a fresh allocation of exactly len bytes (at
 * least 1 byte is allocated so that len 0 still yields a valid pointer).
 * Free with free().  Aborts on allocation failure.
 */
uint8_t *fz_dup(const uint8_t *src, size_t len);

/*
 * The path of a scratch file for targets whose input must be a file (plan
 * files, bad-sector maps): FILE in a directory of this process's own under
 * /dev/shm (or $TMPDIR, or /tmp), made on first use and removed with the
 * file at exit.  One scratch file per process.  Aborts when it cannot.
 */
const char *fz_scratch_file(const char *file);

/*
 * Read every field of table from buf (len bytes) with xfmt_field_get and
 * look each up by name; returns a value that depends on all of them so the
 * reads cannot be optimised away.
 */
uint64_t fz_sweep_fields(const struct xfmt_field *table, const uint8_t *buf, size_t len);

/* Exercise the geometry helpers of g on addresses derived from seed. */
uint64_t fz_sweep_geom(const struct xfmt_geom *g, uint64_t seed);

/* Built-in geometries (see harness.c for the list). */
#define FZ_NPRESETS 12
/* Name of preset i, for messages. */
const char *fz_preset_name(unsigned i);
/*
 * Encode preset i (taken modulo FZ_NPRESETS) as a superblock structure into
 * sb, which must hold XFS_SB_STRUCT_SIZE bytes.
 */
void fz_preset_sb(unsigned i, uint8_t *sb);
/*
 * Fill g from preset i by encoding a superblock through the superblock field
 * table and running xfmt_geom_from_sb on it (so presets obey the same rules
 * as real images).  Aborts if the preset is not a sane geometry.
 */
void fz_preset_geom(unsigned i, struct xfmt_geom *g);

/*
 * Parse the geometry header described above.  Returns the offset of the
 * payload, or -1 when the input is too short or its superblock unusable.
 */
long fz_geom_header(const uint8_t *data, size_t size, struct xfmt_geom *g);

/* Fold a value into a sink for side effects the compiler must keep. */
extern volatile uint64_t fz_blackhole;

#endif /* XFZ_HARNESS_H */
