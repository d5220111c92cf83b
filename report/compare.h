/* compare.h — several targets side by side: the table after their reports. */
#ifndef SHB_COMPARE_H
#define SHB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/report.h"

struct compare_row {
    const char *name; /* the target's label, or its URL */
    bool interrupted; /* a signal (Ctrl-C, SIGTERM) ended its run early */
    struct report_summary sum;
};

/* "Comparison (ratios to NAME, the first target):", a header, then one
 * line per row: req/s, p50 and p99 in ms and errors as the reports print
 * them, and the req/s, p50 and p99 ratios to the first row. */
void compare_text(FILE *f, const struct compare_row *rows, size_t n);

#endif
