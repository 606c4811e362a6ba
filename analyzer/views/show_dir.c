/* placeholder */
#include "analyzer/errors.h"
#include "analyzer/views/show_int.h"
int xa_show_dirblock(struct xa_show_run *s, const char *where, const uint8_t *buf,
		     size_t len, uint64_t byte, uint64_t owner, uint32_t dablk, bool block_form)
{ (void)s; (void)where; (void)buf; (void)len; (void)byte; (void)owner; (void)dablk; (void)block_form; return XERR_USAGE; }
int xa_show_dir(struct xa_show_run *s, const char *arg) { (void)s; (void)arg; return XERR_USAGE; }
int xa_show_path(struct xa_show_run *s, const char *path) { (void)s; (void)path; return XERR_USAGE; }
