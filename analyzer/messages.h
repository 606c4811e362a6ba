/*
 * messages.h - what a library says while it works, without printing it.
 *
 * Libraries (analyzer/, reconstruct/) print nothing: a function with
 * something to tell the user takes a struct xa_messages and hands each
 * message, whole and without a trailing newline, to its callback.  The
 * command line decides where it goes (cli/message_streams.h's
 * xc_message_streams() writes results to standard output and diagnostics
 * to standard error after the program's name); a test can collect them
 * instead.
 */
#ifndef XA_MESSAGES_H
#define XA_MESSAGES_H

enum xa_msg_kind {
	XA_MSG_RESULT,     /* a line of the command's own output */
	XA_MSG_DIAGNOSTIC, /* an error, a refusal or a note about the run */
};

struct xa_messages {
	void (*say)(void *arg, enum xa_msg_kind kind, const char *text);
	void *arg;
};

/*
 * Format one message and hand it to m: xa_result for a line of output,
 * xa_diag for a diagnostic.  Nothing happens when m or m->say is NULL; a
 * message longer than 4 KiB is cut there.
 */
void xa_result(const struct xa_messages *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void xa_diag(const struct xa_messages *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* XA_MESSAGES_H */
