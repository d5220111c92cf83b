/* report/thresholds.h — pass/fail gates for CI: --fail-if EXPR.
 *
 * An expression names a figure of the report, a comparison and a limit:
 * p99>250ms, mean>20ms, errors>1%, errors>0, non2xx>0, rps<5000, ok<99%,
 * timeout>0 (any error kind by name, '-' or '_' for its spaces). The run
 * fails (exit status 3) when any expression is true of its report; the
 * report says, for each, what the figure was and whether it held.
 *
 * Parsing (cli.c, at start-up) and judging a report (report.c, shb.c) are
 * both pure: no I/O, no allocation. */
#ifndef SHB_REPORT_THRESHOLDS_H
#define SHB_REPORT_THRESHOLDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct stats;
struct report_info;

/* The longest expression kept (the report prints it as given). */
#define THRESHOLD_TEXT_MAX 64

enum threshold_metric {
    TH_PERCENTILE, /* pN: the latency percentile N (0 < N <= 100) */
    TH_MIN,        /* latency */
    TH_MEAN,
    TH_MAX,
    TH_RPS,        /* Requests/sec, as the report gives it */
    TH_ERRORS,     /* errors of every kind */
    TH_NON2XX,     /* responses with a status outside 2xx */
    TH_OK,         /* responses of any status */
    TH_KIND,       /* errors of one kind (kind) */
};

enum threshold_op { TH_GT, TH_GE, TH_LT, TH_LE };

struct threshold {
    char text[THRESHOLD_TEXT_MAX]; /* as given, spaces taken out */
    enum threshold_metric metric;
    enum threshold_op op;
    double percentile; /* TH_PERCENTILE */
    int kind;          /* TH_KIND: an enum err_kind */
    bool latency;      /* the limit is a duration: limit_ns */
    bool percent;      /* the limit is a percentage of all requests (counts only) */
    uint64_t limit_ns;
    double limit;      /* a count, a percentage or a rate */
};

/* One --fail-if value. 0, or -1 with what is wrong in err (without the
 * option's name: cli.c adds it). */
int threshold_parse(const char *s, struct threshold *out, char *err, size_t errlen);

/* What a report's figure was against one threshold. */
struct threshold_verdict {
    double value;   /* in the limit's terms: ns, a count, a percentage, a rate */
    bool failed;    /* the expression is true of the report (or could not be judged) */
    bool no_data;   /* a latency figure with no response to measure: failed */
};

void threshold_judge(const struct threshold *t, const struct report_info *ri, const struct stats *s,
                     struct threshold_verdict *out);
/* Whether any of a report's thresholds failed. */
bool thresholds_failed(const struct report_info *ri, const struct stats *s);

/* The report's "Thresholds:" block (nothing without --fail-if); report.c
 * writes the JSON's "thresholds" array from threshold_judge. */
void thresholds_text(FILE *f, const struct report_info *ri, const struct stats *s);

#endif
