/*
 * messages.c - format a library's message and pass it on (messages.h).
 */
#include "analyzer/messages.h"

#include <stdarg.h>
#include <stdio.h>

/* Long enough for two paths and a sentence; a longer message is cut. */
#define MESSAGE_MAX 4096

static void say(const struct xa_messages *m, enum xa_msg_kind kind, const char *fmt, va_list ap)
{
	char text[MESSAGE_MAX];

	vsnprintf(text, sizeof(text), fmt, ap);
	m->say(m->arg, kind, text);
}

void xa_result(const struct xa_messages *m, const char *fmt, ...)
{
	va_list ap;

	if (!m || !m->say)
		return;
	va_start(ap, fmt);
	say(m, XA_MSG_RESULT, fmt, ap);
	va_end(ap);
}

void xa_diag(const struct xa_messages *m, const char *fmt, ...)
{
	va_list ap;

	if (!m || !m->say)
		return;
	va_start(ap, fmt);
	say(m, XA_MSG_DIAGNOSTIC, fmt, ap);
	va_end(ap);
}
