/*
 * main.c - the xfsrecon command line: find the command in the table, parse
 * the options, refuse what the command does not take, run its handler.
 *
 * Exit codes (cli/exit_codes.h) follow fsck: 0 clean, 1 repaired, 4
 * problems found and left, 8 operational error, 16 usage error.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/options.h"

static int usage_error(const struct xc_command *cmd)
{
	if (cmd)
		fprintf(stderr, "try 'xfsrecon help %s'\n", cmd->name);
	else
		fprintf(stderr, "try 'xfsrecon --help'\n");
	return XC_EXIT_USAGE;
}

/* `xfsrecon help [COMMAND]` */
static int run_help(const struct xc_args *a)
{
	const struct xc_command *cmd;

	if (a->nwords < 2) {
		xc_help_all(stdout);
		return XC_EXIT_CLEAN;
	}
	cmd = xc_command_find(a->words[1]);
	if (!cmd || a->nwords > 2) {
		fprintf(stderr, "xfsrecon: help: unknown command '%s'\n", a->words[1]);
		return usage_error(NULL);
	}
	xc_help_command(stdout, cmd);
	return XC_EXIT_CLEAN;
}

/* The first option given that cmd does not take, or XC_OPT_COUNT. */
static enum xc_opt stray_option(const struct xc_command *cmd, const struct xc_args *a)
{
	for (int o = 0; o < XC_OPT_COUNT; o++)
		if (xc_has(a, (enum xc_opt)o) && !xc_command_takes(cmd, (enum xc_opt)o))
			return (enum xc_opt)o;
	return XC_OPT_COUNT;
}

int main(int argc, char **argv)
{
	const struct xc_command *cmd;
	struct xc_args a;
	enum xc_opt stray;
	int n;

	if (xc_options_parse(argc, argv, &a, stderr) != 0)
		return usage_error(NULL);
	if (a.nwords == 0 || !strcmp(a.words[0], "help")) {
		if (a.nwords == 0 && !xc_has(&a, XC_OPT_HELP) && !xc_has(&a, XC_OPT_VERSION)) {
			fprintf(stderr, "xfsrecon: a command and an image are needed\n");
			return usage_error(NULL);
		}
		if (a.nwords == 0 && xc_has(&a, XC_OPT_VERSION) && !xc_has(&a, XC_OPT_HELP)) {
			printf("xfsrecon %s\n", PACKAGE_VERSION);
			return XC_EXIT_CLEAN;
		}
		return run_help(&a);
	}
	if (!strcmp(a.words[0], "version")) {
		printf("xfsrecon %s\n", PACKAGE_VERSION);
		return XC_EXIT_CLEAN;
	}
	cmd = xc_command_find(a.words[0]);
	if (!cmd) {
		fprintf(stderr, "xfsrecon: unknown command '%s'\n", a.words[0]);
		return usage_error(NULL);
	}
	if (xc_has(&a, XC_OPT_HELP)) {
		xc_help_command(stdout, cmd);
		return XC_EXIT_CLEAN;
	}
	stray = stray_option(cmd, &a);
	if (stray != XC_OPT_COUNT) {
		fprintf(stderr, "xfsrecon: %s does not take --%s\n", cmd->name, xc_options[stray].name);
		return usage_error(cmd);
	}
	n = a.nwords - 1;
	if (n < cmd->min_operands) {
		fprintf(stderr, "xfsrecon: %s: xfsrecon %s %s\n",
			n < 1 ? "a command and an image are needed" : "operands are missing",
			cmd->name, cmd->operands);
		return usage_error(cmd);
	}
	if (n > cmd->max_operands) {
		fprintf(stderr, "xfsrecon: unexpected argument '%s': xfsrecon %s %s\n",
			a.words[cmd->max_operands + 1], cmd->name, cmd->operands);
		return usage_error(cmd);
	}
	return cmd->run(cmd, &a);
}
