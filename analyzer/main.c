/*
 * main.c - the xfsrecon command line.  Parses options and hands over to the
 * engine; nothing else lives here.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: xfsrecon COMMAND [OPTIONS] IMAGE\n"
		"\n"
		"commands:\n"
		"  info IMAGE            geometry, features, log state, per-AG summary\n"
		"  check IMAGE           verify every structure; fsck-style exit code\n"
		"  show IMAGE WHAT       annotated dump of one structure\n"
		"\n"
		"exit codes: 0 clean, 4 problems left, 8 operational error, 16 usage error\n");
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version"))) {
		printf("xfsrecon %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return 16;
}
