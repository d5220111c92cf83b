/* html.h — the HTML report: one self-contained page (inline SVG drawn here,
 * a little plain JavaScript for hover values and toggling series, no
 * network request of any kind) from one or more JSON reports, as -j writes
 * them. With several reports the charts overlay them, one colour each, and
 * a comparison table follows the header. Written by --html FILE after a
 * run and by `shb report --html FILE REPORT.json...` (html_cmd.c). */
#ifndef SHB_HTML_H
#define SHB_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "report/json.h"

/* At most this many reports on one page (one colour each). */
#define HTML_MAX_REPORTS 16

/* The page for the n reports (JSON objects; n <= HTML_MAX_REPORTS) to f.
 * A report's histograms (--histograms, --shard) give the exact percentile
 * spectrum and p90 and max per second; without them the page draws what
 * the report's percentiles give. 0, or -1 with a one-line reason in err
 * (a report that is not one of shb's). */
int html_write(FILE *f, const struct json *const *reports, size_t n, char *err, size_t errlen);

/* What html_write needs of a report to draw it: NULL, or why not
 * ("no \"url\""). */
const char *html_not_a_report(const struct json *r);

#endif
