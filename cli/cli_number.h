/*
 * cli_number.h - numbers typed by the user (byte offsets, partition, AG,
 * inode and block numbers): decimal, 0x-hex or 0-octal, no sign, no junk.
 */
#ifndef XC_CLI_NUMBER_H
#define XC_CLI_NUMBER_H

#include <stdint.h>

/* Parse s into *out; 0 on success, -1 for anything that is not a whole
 * unsigned number that fits in 64 bits. */
int xc_parse_u64(const char *s, uint64_t *out);

#endif /* XC_CLI_NUMBER_H */
