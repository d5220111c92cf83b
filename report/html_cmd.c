/* html_cmd.c — `shb report --html FILE REPORT.json...`: the HTML page
 * (html.c) from JSON reports written earlier. Shards of one run are merged
 * first (shb merge's own code), so the page shows the whole run; any other
 * set of reports is drawn side by side, one colour each. */
#include "report/html_cmd.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/json_file.h"
#include "report/merge.h"

static void usage(FILE *f)
{
    fputs("Usage: shb report --html <FILE> <REPORT>...\n"
          "\n"
          "Write an HTML page of charts from shb JSON reports (shb -j; with --histograms the percentile spectrum\n"
          "is exact). Shards of one run (--shard) are merged first; other reports are drawn side by side.\n"
          "\n"
          "Arguments:\n"
          "  <REPORT>...  JSON reports (a file may hold an array of them; - reads stdin)\n"
          "\n"
          "Options:\n"
          "      --html <FILE>  The page to write (created or truncated)\n"
          "  -h, --help         Print help\n",
          f);
}

/* Every report given is a shard of one run (--shard I/N with N > 1, one
 * URL): the page is of the run, so they are merged. */
static bool all_shards(const struct json *const *r, size_t n)
{
    if (n < 2)
        return false;
    for (size_t i = 0; i < n; i++) {
        uint64_t count;
        const struct json *u = json_get(r[i], "url"), *u0 = json_get(r[0], "url");
        if (json_to_u64(json_path(r[i], "shard", "count", NULL), &count) < 0 || count < 2 || json_get(r[i], "merged") ||
            !u || !u0 || strcmp(u->text, u0->text) != 0)
            return false;
    }
    return true;
}

/* shb merge -j --histograms over the files already read, its report
 * parsed into *out (text kept in *text). 0, or 2 with the one line said. */
static int merge_shards(const struct json_file *files, size_t nfiles, char **text, struct json **out, FILE *errf)
{
    char *merged = NULL, *why = NULL;
    size_t mlen = 0, wlen = 0;
    FILE *mf = open_memstream(&merged, &mlen), *wf = open_memstream(&why, &wlen);
    int rc = 2;
    if (mf && wf)
        rc = merge_files(files, nfiles, &(struct merge_options){ .json = true, .histograms = true }, mf, wf);
    if (mf)
        fclose(mf);
    if (wf)
        fclose(wf);
    if (rc == 0) {
        char perr[160];
        *out = json_parse(merged, mlen, perr, sizeof perr);
        *text = merged;
        merged = NULL;
        if (!*out) {
            fprintf(errf, "shb: report: the merged shards do not read back: %s\n", perr);
            rc = 2;
        }
    } else {
        const char *line = why && strncmp(why, "shb: merge: ", 12) == 0 ? why + 12 : why ? why : "out of memory\n";
        fprintf(errf, "shb: report: merging the shards: %s", line);
        if (!*line || line[strlen(line) - 1] != '\n')
            fputc('\n', errf);
        rc = rc == 1 ? 1 : 2;
    }
    free(merged);
    free(why);
    return rc;
}

int html_cmd_main(int argc, char **argv, FILE *out, FILE *errf)
{
    const char *page = NULL;
    int nfiles = 0;
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (options_done || a[0] != '-' || strcmp(a, "-") == 0) {
            argv[1 + nfiles++] = argv[i]; /* files, in order, over what was read */
        } else if (strcmp(a, "--") == 0) {
            options_done = true;
        } else if (strcmp(a, "--html") == 0 || strncmp(a, "--html=", 7) == 0) {
            page = a[6] == '=' ? a + 7 : i + 1 < argc ? argv[++i] : NULL;
            if (!page || !*page) {
                fputs("shb: report: --html needs a file name (shb report --html FILE REPORT...)\n", errf);
                return 2;
            }
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(out);
            return 0;
        } else {
            fprintf(errf, "shb: report: unknown option '%s' (shb report --html FILE REPORT...)\n", a);
            return 2;
        }
    }
    if (!page) {
        fputs("shb: report: --html FILE is required: the page to write (shb report --html FILE REPORT...)\n", errf);
        return 2;
    }
    if (nfiles == 0) {
        fputs("shb: report: no report to draw (shb report --html FILE REPORT...)\n", errf);
        return 2;
    }
    struct json_file *files = calloc((size_t)nfiles, sizeof *files);
    const struct json *reports[HTML_MAX_REPORTS];
    size_t n = 0;
    char err[4600] = "";
    int rc = files ? 0 : 1;
    for (int i = 0; i < nfiles && rc == 0; i++) {
        if (json_file_load(argv[1 + i], &files[i], err, sizeof err) < 0) {
            fprintf(errf, "shb: report: %s\n", err);
            rc = 2;
            break;
        }
        int k = 0;
        JSON_FILE_EACH(r, files[i].root)
        {
            const char *why = html_not_a_report(r);
            if (why && rc == 0) {
                if (files[i].root->type == JSON_ARRAY)
                    fprintf(errf, "shb: report: %s[%d]: not an shb report: %s\n", files[i].path, k, why);
                else
                    fprintf(errf, "shb: report: %s: not an shb report: %s\n", files[i].path, why);
                rc = 2;
            } else if (rc == 0 && n == HTML_MAX_REPORTS) {
                fprintf(errf, "shb: report: more than %d reports: a page draws %d at most\n", HTML_MAX_REPORTS,
                        HTML_MAX_REPORTS);
                rc = 2;
            } else if (rc == 0) {
                reports[n++] = r;
            }
            k++;
        }
    }
    char *merged_text = NULL;
    struct json *merged = NULL;
    if (rc == 0 && all_shards(reports, n)) {
        rc = merge_shards(files, (size_t)nfiles, &merged_text, &merged, errf);
        if (rc == 0) {
            reports[0] = merged;
            n = 1;
        }
    }
    if (rc == 0) {
        FILE *f = fopen(page, "w");
        if (!f) {
            fprintf(errf, "shb: report: --html %s: cannot create it: %s\n", page, strerror(errno));
            rc = 2;
        } else {
            if (html_write(f, reports, n, err, sizeof err) < 0) {
                fprintf(errf, "shb: report: %s\n", err);
                rc = 1;
            }
            if (fclose(f) != 0 && rc == 0) {
                fprintf(errf, "shb: report: --html %s: %s\n", page, strerror(errno));
                rc = 1;
            }
        }
    }
    json_free(merged);
    free(merged_text);
    for (int i = 0; i < nfiles && files; i++)
        json_file_free(&files[i]);
    free(files);
    return rc;
}
