/*
 * gen_findings.c - print doc/findings.md, the list of every finding, from the
 * findings table (formats/problems.def through formats/problem.h's table
 * iteration functions), then the fix classes and the repair actions that
 * answer them (reconstruct/actions.def).
 *
 * Usage: gen_findings PROBLEMS_DEF > doc/findings.md
 *
 * The rows come from the compiled tables, so the document cannot disagree
 * with the program.  Only the family titles ("0x03xx: AGF") and the reasons
 * why repair leaves REPORT_ONLY errors are not in the tables: they are
 * comments of problems.def, read from the file named on the command line.  `make findings-doc` regenerates the file and
 * tests/golden/findings_doc.sh fails when the committed copy is stale.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/problem.h"
#include "reconstruct/actions.h"

#define FAMILY_COUNT 256u
#define TITLE_MAX    160u
#define NOTE_MAX     400u
#define NOTES_MAX    32u

/* Family titles by the high byte of the code; empty when problems.def has none. */
static char titles[FAMILY_COUNT][TITLE_MAX];

/*
 * Why repair leaves each REPORT_ONLY error as it is: the comment above its
 * row, which opens with "REPORT_ONLY:".  The document names the reason next
 * to the class, and a REPORT_ONLY row without one is an error here.
 */
struct note {
	unsigned code;
	char     text[NOTE_MAX];
};
static struct note notes[NOTES_MAX];
static unsigned nnotes;
static char pending[NOTE_MAX];  /* the comment being read, then waiting for its row */
static int note_state;          /* 0 none, 1 inside the comment, 2 closed */

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

/* Add the text of one comment line (up to its end or the closing mark). */
static void note_append(const char *s)
{
	size_t have = strlen(pending), n = strcspn(s, "\n");
	const char *end = strstr(s, "*/");

	if (end && (size_t)(end - s) < n) {
		n = (size_t)(end - s);
		note_state = 2;
	}
	while (n && s[n - 1] == ' ')
		n--;
	if (have && n && have + 1 < NOTE_MAX)
		pending[have++] = ' ';
	if (have + n >= NOTE_MAX)
		n = NOTE_MAX - 1 - have;
	memcpy(pending + have, s, n);
	pending[have + n] = '\0';
}

/* Follow a REPORT_ONLY comment to the row it stands above. */
static void parse_note_line(const char *line)
{
	const char *p = line;
	unsigned code;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!strncmp(p, "/* REPORT_ONLY: ", 16)) {
		pending[0] = '\0';
		note_state = 1;
		note_append(p + 16);
	} else if (note_state == 1 && *p == '*') {
		if (p[1] != '/')
			for (p++; *p == ' '; p++)
				;
		note_append(p);
	} else if (note_state == 2 && sscanf(p, "XPROB(0x%x,", &code) == 1) {
		if (nnotes < NOTES_MAX) {
			notes[nnotes].code = code;
			memcpy(notes[nnotes].text, pending, sizeof(pending));
			nnotes++;
		}
		note_state = 0;
	} else {
		note_state = 0;
	}
}

static const char *note_of(enum xprob_code code)
{
	for (unsigned i = 0; i < nnotes; i++)
		if (notes[i].code == (unsigned)code)
			return notes[i].text;
	return NULL;
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
		if (at_line_start) {
			parse_title_line(line);
			parse_note_line(line);
		}
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

/* The fix classes, each with how many findings have it and what it means. */
static void print_classes(void)
{
	unsigned n = xprob_table_size();

	printf("\n## Fix classes\n\n"
	       "The fix column above names one of these. Each action below lists the classes\n"
	       "of the findings it may answer; a plan that ties a finding to an action whose row\n"
	       "lacks the finding's class is a planner bug, which the test suite fails on.\n\n");
	printf("| class | findings | what repair does |\n|---|---|---|\n");
	for (unsigned f = 0; f < XFIX_COUNT; f++) {
		unsigned count = 0;

		for (unsigned i = 0; i < n; i++)
			count += xprob_fix_of(xprob_table_code(i)) == (enum xprob_fix)f;
		printf("| %s | %u | ", xprob_fix_name((enum xprob_fix)f), count);
		put_cell(xprob_fix_description((enum xprob_fix)f));
		printf(" |\n");
	}
}

/* Each REPORT_ONLY error with the reason beside its row; -1 when one has none. */
static int print_left_alone(void)
{
	unsigned n = xprob_table_size();

	printf("\nErrors repair leaves as they are (REPORT_ONLY), and why:\n\n");
	for (unsigned i = 0; i < n; i++) {
		enum xprob_code code = xprob_table_code(i);
		const char *why = note_of(code);

		if (xprob_fix_of(code) != XFIX_REPORT_ONLY)
			continue;
		if (!why) {
			fprintf(stderr, "gen_findings: %s is REPORT_ONLY without a comment "
				"\"REPORT_ONLY: why\" above its row\n", xprob_id(code));
			return -1;
		}
		printf("- `%s`: ", xprob_id(code));
		put_cell(why);
		printf("\n");
	}
	return 0;
}

/* The actions table: name, the classes it answers, what it does. */
static void print_actions(void)
{
	printf("\n## Repair actions\n\n"
	       "The steps a repair plan is made of (`reconstruct/actions.def`), in the order\n"
	       "of the planner's phases. The name is the `kind` of an action in plans, repair\n"
	       "reports and `show-plan`.\n\n");
	printf("| action | answers | what it does |\n|---|---|---|\n");
	for (unsigned k = 0; k < XR_ACT_COUNT; k++) {
		enum xr_action_kind kind = (enum xr_action_kind)k;
		const char *sep = "";

		printf("| `%s` | ", xr_action_name(kind));
		for (unsigned f = 0; f < XFIX_COUNT; f++) {
			if (!xr_action_answers(kind, (enum xprob_fix)f))
				continue;
			printf("%s%s", sep, xprob_fix_name((enum xprob_fix)f));
			sep = ", ";
		}
		printf(" | ");
		put_cell(xr_action_description(kind));
		printf(" |\n");
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
	printf("Generated from `formats/problems.def` and `reconstruct/actions.def` by\n"
	       "`doc/gen_findings`: do not edit by hand, run `make findings-doc` after changing\n"
	       "either table.\n\n");
	printf("Every corruption or notable condition xfsrecon reports is one row of this table.\n"
	       "The code and the ID are stable: the XML report (doc/report.xsd) carries both in\n"
	       "each `<finding>` element's `code` and `id` attributes. The fix column is the class\n"
	       "of repair that answers the finding; the classes and the repair actions that answer\n"
	       "them follow the findings. In messages, `{field}`, `{expected}`, `{observed}`,\n"
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
	print_classes();
	if (print_left_alone())
		return 1;
	print_actions();
	if (fflush(stdout) || ferror(stdout)) {
		perror("gen_findings: stdout");
		return 1;
	}
	return 0;
}
