/* html_run.c — --html FILE on a run (html_run.h). */
#include "report/html_run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/html.h"
#include "report/json.h"

int html_run_open(struct html_run *h, const char *path, char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    h->path = path;
    h->page = fopen(path, "w");
    if (!h->page) {
        snprintf(err, errlen, "--html %s: cannot create it: %s", path, strerror(errno));
        return -1;
    }
    h->mem = open_memstream(&h->text, &h->len);
    if (!h->mem) {
        snprintf(err, errlen, "out of memory");
        fclose(h->page);
        h->page = NULL;
        return -1;
    }
    return 0;
}

void html_run_add(struct html_run *h, const struct report_info *ri, const struct stats *s)
{
    struct report_info with = *ri;
    with.histograms = true;
    report_json(h->mem, &with, s);
    h->n++;
}

int html_run_close(struct html_run *h, char *err, size_t errlen)
{
    int rc = 0;
    fclose(h->mem);
    struct json *all = NULL;
    const struct json *reports[HTML_MAX_REPORTS];
    size_t n = 0;
    char why[160];
    if (h->n && !(all = json_parse_values(h->text, h->len, why, sizeof why))) {
        snprintf(err, errlen, "--html: the run's report does not read back: %s", why);
        rc = -1;
    }
    for (const struct json *r = all; r && n < HTML_MAX_REPORTS; r = r->next)
        reports[n++] = r;
    if (rc == 0 && n && html_write(h->page, reports, n, err, errlen) < 0)
        rc = -1;
    if (fclose(h->page) != 0 && rc == 0) {
        snprintf(err, errlen, "--html: %s", strerror(errno));
        rc = -1;
    }
    if (h->n == 0)
        unlink(h->path);
    json_free(all);
    free(h->text);
    memset(h, 0, sizeof *h);
    return rc;
}
