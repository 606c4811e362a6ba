/*
 * message_streams.c - a library's messages onto two streams
 * (message_streams.h).
 */
#include "cli/message_streams.h"

static void say(void *arg, enum xa_msg_kind kind, const char *text)
{
	struct xc_message_streams *s = arg;
	FILE *f = kind == XA_MSG_RESULT ? s->out : s->err;

	if (!f)
		return;  /* a caller that wants only one kind */
	if (kind == XA_MSG_RESULT)
		fprintf(f, "%s\n", text);
	else
		fprintf(f, "xfsrecon: %s\n", text);
}

const struct xa_messages *xc_message_streams(struct xc_message_streams *s, FILE *out, FILE *err)
{
	s->msgs.say = say;
	s->msgs.arg = s;
	s->out = out;
	s->err = err;
	return &s->msgs;
}
