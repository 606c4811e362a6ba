/*
 * escape.h - hostile bytes made into safe, reversible UTF-8 (XML 1.0 text
 * and terminal output alike).
 */
#ifndef XA_ESCAPE_H
#define XA_ESCAPE_H

#include <stddef.h>

/*
 * Turn len hostile bytes into a NUL-terminated string that is valid UTF-8
 * and contains only characters XML 1.0 allows and that display safely:
 * well-formed UTF-8 sequences of printable characters are kept; every other
 * byte (invalid or overlong UTF-8, surrogates, C0/C1 controls, DEL,
 * U+FFFE/U+FFFF) becomes the four characters \xNN, and a backslash becomes
 * \\ so the escaping can be undone without ambiguity.  Returns a malloc'd
 * string the caller frees, or NULL when memory runs out.
 */
char *xa_escape_text(const void *bytes, size_t len);

/*
 * The same for one name of a directory entry, with "/" also written as
 * \x2F: a name is never a path, so a stored "/" (which only a damaged or
 * hostile image holds) cannot pose as a separator in a printed path.
 */
char *xa_escape_name(const void *bytes, size_t len);

#endif /* XA_ESCAPE_H */
