/* html_run.h — --html FILE on a run: the page (html.h) of the run's
 * targets, drawn after the last report from their JSON reports, kept in
 * memory meanwhile with their histograms (so the page has the exact
 * percentile spectrum whether -j --histograms was given or not). */
#ifndef SHB_HTML_RUN_H
#define SHB_HTML_RUN_H

#include <stddef.h>
#include <stdio.h>

#include "report/report.h"
#include "stats/stats.h"

struct html_run {
    const char *path;
    FILE *page; /* created at the start: a path that cannot be written stops the run before any traffic */
    FILE *mem;  /* the reports, one JSON object after another */
    char *text;
    size_t len;
    size_t n;
};

/* Creates path (truncated). 0, or -1 with a one-line reason in err. */
int html_run_open(struct html_run *h, const char *path, char *err, size_t errlen);
/* One target's report onto the page. */
void html_run_add(struct html_run *h, const struct report_info *ri, const struct stats *s);
/* Draws the page, closes it and frees h; no target ran: no page (the
 * file is removed). 0, or -1 with a reason in err. */
int html_run_close(struct html_run *h, char *err, size_t errlen);

#endif
