/*
 * gen_findings.c - print doc/findings.md, the list of every finding, from the
 * findings table (formats/problems.def through formats/problem.h's table
 * iteration functions).
 *
 * Usage: gen_findings PROBLEMS_DEF > doc/findings.md
 *
 * The rows come from the compiled table, so the document cannot disagree with
 * the program.  Only the family titles ("0x03xx: AGF") are not in the table:
 * they are the section comments of problems.def, read from the file named on
 * the command line.  `make findings-doc` regenerates the file and
 * tests/golden/findings_doc.sh fails when the committed copy is stale.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/problem.h"

#define FAMILY_COUNT 256u
#define TITLE_MAX    160u

/* Family titles by the high byte of the code; empty when problems.def has none. */
static char titles[FAMILY_COUNT][TITLE_MAX];

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Take a title from a line of the form "/" "* 0xSSxx: title *" "/". */
static void parse_title_line(const char *line)
{
	const char *p = line, *end;
	int hi, lo;
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "/* 0x", 5))
		return;
	p += 5;
	hi = hexval((unsigned char)p[0]);
	lo = hi < 0 ? -1 : hexval((unsigned char)p[1]);
	if (lo < 0 || strncmp(p + 2, "xx: ", 4))
		return;
	p += 6;
	end = strstr(p, " */");
	if (!end)
		return;
	n = (size_t)(end - p);
	if (n >= TITLE_MAX)
		n = TITLE_MAX - 1;
	memcpy(titles[hi * 16 + lo], p, n);
	titles[hi * 16 + lo][n] = '\0';
}

static int read_titles(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");
	int at_line_start = 1;

	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);

		/* Only the first chunk of an over-long line can start a comment. */
		if (at_line_start)
			parse_title_line(line);
		at_line_start = len > 0 && line[len - 1] == '\n';
	}
	if (ferror(f)) {
		perror(path);
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

/* Print text inside a table cell: markdown syntax characters are escaped. */
static void put_cell(const char *s)
{
	for (; *s; s++) {
		if (strchr("\\|*_`<>[]", *s))
			putchar('\\');
		putchar(*s);
	}
}

int main(int argc, char **argv)
{
	unsigned n = xprob_table_size();
	unsigned by_sev[3] = { 0, 0, 0 };
	int family = -1;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PROBLEMS_DEF\n", argv[0]);
		return 2;
	}
	if (read_titles(argv[1]))
		return 1;
	for (unsigned i = 0; i < n; i++) {
		enum xprob_severity sev = xprob_severity_of(xprob_table_code(i));

		if ((unsigned)sev < 3)
			by_sev[sev]++;
	}

	printf("# Findings\n\n");
	printf("Generated from `formats/problems.def` by `doc/gen_findings`: do not edit by hand,\n"
	       "run `make findings-doc` after changing the table.\n\n");
	printf("Every corruption or notable condition xfsrecon reports is one row of this table.\n"
	       "The code and the ID are stable: the XML report (doc/report.xsd) carries both in\n"
	       "each `<finding>` element's `code` and `id` attributes. The fix column is the repair\n"
	       "action the finding calls for. In messages, `{field}`, `{expected}`, `{observed}`,\n"
	       "`{ag}`, `{agbno}`, `{ino}` and `{off}` are filled in from the finding's context;\n"
	       "`{owner}` and `{owner2}` name two owners of blocks (an inode number, or a special\n"
	       "owner by its rmapbt name: FS, LOG, AG, INOBT, INODES, REFC, COW), `{claim}` and\n"
	       "`{claim2}` the same owners with the fork and file offset of their claim.\n\n");
	printf("%u findings; by severity: error %u, warning %u, info %u.\n", n,
	       by_sev[XSEV_ERROR], by_sev[XSEV_WARNING], by_sev[XSEV_INFO]);

	for (unsigned i = 0; i < n; i++) {
		enum xprob_code code = xprob_table_code(i);
		int fam = (int)(((unsigned)code >> 8) & 0xFFu);
		const char *id = xprob_id(code), *msg = xprob_message(code);

		if (fam != family) {
			family = fam;
			printf("\n## 0x%02Xxx: ", (unsigned)fam);
			if (titles[fam][0])
				put_cell(titles[fam]);
			else
				printf("family 0x%02X", (unsigned)fam);
			printf("\n\n| code | ID | severity | fix | message |\n");
			printf("|---|---|---|---|---|\n");
		}
		printf("| 0x%04X | `%s` | %s | %s | ", (unsigned)code, id ? id : "?",
		       xprob_severity_name(xprob_severity_of(code)),
		       xprob_fix_name(xprob_fix_of(code)));
		put_cell(msg ? msg : "");
		printf(" |\n");
	}
	if (fflush(stdout) || ferror(stdout)) {
		perror("gen_findings: stdout");
		return 1;
	}
	return 0;
}
