/* placeholder */
#include "analyzer/errors.h"
#include "analyzer/views/show_int.h"
int xa_show_log(struct xa_show_run *s) { (void)s; return XERR_USAGE; }
