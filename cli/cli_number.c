/*
 * cli_number.c - strict parsing of numbers from the command line.
 */
#include "cli/cli_number.h"

#include <errno.h>
#include <stdlib.h>

int xc_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	/* strtoull accepts a sign and wraps "-1" around: refuse both. */
	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}
