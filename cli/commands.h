/*
 * commands.h - the command table: every command's name, operands, options
 * (with what each means for that command), summary and handler.
 *
 * main.c dispatches through it and refuses an option a command does not
 * list; `help`, `CMD --help` and the man page (doc/gen_man.c) are printed
 * from it, so what users read is what the parser accepts.
 */
#ifndef XC_COMMANDS_H
#define XC_COMMANDS_H

#include <stdio.h>

#include "cli/options.h"

struct xc_command;

/* A command's handler: returns the process exit code (enum xc_exit). */
typedef int (*xc_handler)(const struct xc_command *cmd, const struct xc_args *a);

struct xc_cmd_option {
	enum xc_opt opt;
	const char *help;      /* its meaning for this command, or NULL: the general one */
};

struct xc_command {
	const char *name;
	const char *operands;  /* "IMAGE [PATH]", as usage prints them */
	int         min_operands;
	int         max_operands;
	const char *summary;   /* one line */
	const char *details;   /* a paragraph for help and the man page, or NULL */
	const struct xc_cmd_option *options;   /* ended by { XC_OPT_COUNT, NULL } */
	xc_handler  run;
};

/* Every command, ended by an entry whose name is NULL. */
extern const struct xc_command xc_commands[];

/* The command called name, or NULL. */
const struct xc_command *xc_command_find(const char *name);

/* Whether cmd accepts option o (--help: every command does). */
int xc_command_takes(const struct xc_command *cmd, enum xc_opt o);

/* The help of cmd for option o: its own, or the option's general one. */
const char *xc_command_option_help(const struct xc_command *cmd, enum xc_opt o);

/* `xfsrecon help`: every command with its summary, and the exit codes. */
void xc_help_all(FILE *f);

/* `xfsrecon help CMD` and `CMD --help`: usage, details and every option. */
void xc_help_command(FILE *f, const struct xc_command *cmd);

/* The handlers, one file per command family (cmd_*.c). */
int xc_run_info(const struct xc_command *cmd, const struct xc_args *a);
int xc_run_check(const struct xc_command *cmd, const struct xc_args *a);
int xc_run_show(const struct xc_command *cmd, const struct xc_args *a);
int xc_run_files(const struct xc_command *cmd, const struct xc_args *a);
int xc_run_fsmap(const struct xc_command *cmd, const struct xc_args *a);
int xc_run_map(const struct xc_command *cmd, const struct xc_args *a);
int xc_run_repair(const struct xc_command *cmd, const struct xc_args *a);
int xc_run_plan(const struct xc_command *cmd, const struct xc_args *a);
int xc_run_show_plan(const struct xc_command *cmd, const struct xc_args *a);
int xc_run_apply(const struct xc_command *cmd, const struct xc_args *a);
int xc_run_ncheck(const struct xc_command *cmd, const struct xc_args *a);
int xc_run_owner(const struct xc_command *cmd, const struct xc_args *a);
int xc_run_badmap(const struct xc_command *cmd, const struct xc_args *a);
int xc_run_log(const struct xc_command *cmd, const struct xc_args *a);

#endif /* XC_COMMANDS_H */
