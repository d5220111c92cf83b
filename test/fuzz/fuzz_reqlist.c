/* test/fuzz/fuzz_reqlist.c — the request list reader (cli/reqlist.c) on
 * any bytes a targets file may hold: malformed lines, NULs, CRLF, huge
 * lines, unterminated files.
 *
 * Input: the file's bytes, whole. What must hold:
 *   - nothing crashes, reads out of bounds or leaks (ASan, UBSan);
 *   - a refusal is one line naming a line number, and leaves the list empty;
 *   - an accepted list has 1 to REQLIST_MAX targets, each on the first's
 *     scheme, host and port, with a path starting '/', a line number within
 *     the file's lines in increasing order, header names and values
 *     without CR or LF, and (HTTP format) a method. */
#include "cli/reqlist.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct reqlist l;
    char err[512];
    unsigned lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    if (reqlist_parse((const char *)data, size, &l, err, sizeof err) < 0) {
        FZ_CHECK(strncmp(err, "--targets: line ", 16) == 0, "a refusal without its line: %s", err);
        FZ_CHECK(!strchr(err, '\n') || memchr(data, '\n', size), "a refusal of several lines: %s", err);
        FZ_CHECK(l.n == 0 && l.e == NULL, "a refused list kept %zu targets", l.n);
        return 0;
    }
    FZ_CHECK(l.n >= 1 && l.n <= REQLIST_MAX, "%zu targets", l.n);
    unsigned last = 0;
    for (size_t i = 0; i < l.n; i++) {
        const struct reqlist_entry *e = &l.e[i];
        FZ_CHECK(e->line > last && e->line <= lines, "target %zu on line %u (after %u, of %u)", i, e->line, last,
                 lines);
        last = e->line;
        FZ_CHECK(e->url.https == l.e[0].url.https && strcmp(e->url.host, l.e[0].url.host) == 0 &&
                     e->url.port == l.e[0].url.port,
                 "target %zu on another server", i);
        FZ_CHECK(e->url.target && e->url.target[0] == '/', "target %zu's path", i);
        FZ_CHECK(!l.http_format || (e->method && e->method[0]), "target %zu without a method", i);
        for (size_t h = 0; h < e->nheaders; h++)
            FZ_CHECK(!strpbrk(e->headers[h].name, "\r\n:") && !strpbrk(e->headers[h].value, "\r\n"),
                     "target %zu header %zu", i, h);
    }
    reqlist_free(&l);
    return 0;
}
