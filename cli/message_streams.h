/*
 * message_streams.h - where a library's messages (analyzer/messages.h) go on
 * the command line: results to an output stream, diagnostics to an error
 * stream after the program's name, each on a line of its own.
 */
#ifndef XC_MESSAGE_STREAMS_H
#define XC_MESSAGE_STREAMS_H

#include <stdio.h>

#include "analyzer/messages.h"

struct xc_message_streams {
	struct xa_messages msgs;
	FILE              *out, *err;
};

/* Point s at out and err (a NULL stream drops its kind); returns the sink
 * to hand to the library. */
const struct xa_messages *xc_message_streams(struct xc_message_streams *s, FILE *out, FILE *err);

#endif /* XC_MESSAGE_STREAMS_H */
