/* merge.h — `shb merge [-j] [--force] FILE...`: one report from many.
 *
 * Reads JSON reports (shards of one run, or separate runs; a file may also
 * hold an array of them) and prints one report in the same text or JSON
 * form: counts, status codes, error kinds and bytes summed, histograms
 * added bucket by bucket from their HdrHistogram encodings (so percentiles
 * are exact, never averaged), and rates over the union of the reports'
 * wall-clock windows. */
#ifndef SHB_MERGE_H
#define SHB_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/json_file.h"
#include "report/thresholds.h"

/* argv[0] is "merge". Writes the report to out, a one-line error
 * ("shb: merge: ...") to err. Returns the exit status: 0, or 2 for bad
 * input (a flag, a file, a report that cannot be merged). */
int merge_main(int argc, char **argv, FILE *out, FILE *err);

/* What merge_main's options ask for. */
struct merge_options {
    bool json;       /* -j: the JSON report, else the text one */
    bool histograms; /* --histograms: the JSON carries the merged histograms */
    bool force;      /* --force: other URLs and protocols too */
    const struct threshold *thresholds; /* --fail-if */
    size_t nthresholds;
};

/* The merge itself, over files already read (shb report hands over the
 * ones it read, stdin included). Same output and exit status as
 * merge_main. */
int merge_files(const struct json_file *files, size_t nfiles, const struct merge_options *o, FILE *out, FILE *err);

#endif
