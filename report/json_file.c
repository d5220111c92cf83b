/* json_file.c — reading a file of JSON reports (json_file.h). */
#include "report/json_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILE_BYTES (1u << 30) /* a report of even a day's run is far smaller */

static char *read_all(const char *path, size_t *n, char *err, size_t errlen)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (len == cap) {
            if (cap >= MAX_FILE_BYTES) {
                snprintf(err, errlen, "%s: larger than 1 GiB: not a report", path);
                free(buf);
                buf = NULL;
                break;
            }
            char *more = realloc(buf, cap * 2);
            if (!more) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = more;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                snprintf(err, errlen, "%s: %s", path, strerror(errno));
                free(buf);
                buf = NULL;
            }
            break;
        }
    }
    if (!buf && !err[0])
        snprintf(err, errlen, "out of memory");
    if (f != stdin)
        fclose(f);
    *n = len;
    return buf;
}

/* Several values one after another (reports concatenated, `cat a.json
 * b.json | shb merge -`) as one array of their reports, in order: each
 * value a report, or an array of them whose elements take its place. The
 * array is a new node; the values' own array nodes are freed. */
static struct json *as_one_array(struct json *values)
{
    struct json *all = calloc(1, sizeof *all);
    if (!all) {
        json_free(values);
        return NULL;
    }
    all->type = JSON_ARRAY;
    struct json **tail = &all->child;
    for (struct json *v = values, *next; v; v = next) {
        next = v->next;
        v->next = NULL;
        if (v->type != JSON_ARRAY) {
            *tail = v;
            tail = &v->next;
            continue;
        }
        *tail = v->child;
        while (*tail)
            tail = &(*tail)->next;
        v->child = NULL;
        json_free(v);
    }
    return all;
}

int json_file_load(const char *path, struct json_file *f, char *err, size_t errlen)
{
    size_t n = 0;
    err[0] = '\0';
    f->path = path;
    f->text = read_all(path, &n, err, errlen);
    if (!f->text)
        return -1;
    char why[160];
    f->root = json_parse_values(f->text, n, why, sizeof why);
    if (!f->root) {
        snprintf(err, errlen, "%s: not JSON: %s", path, why);
        return -1;
    }
    if (f->root->next && !(f->root = as_one_array(f->root))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (f->root->type == JSON_ARRAY && !f->root->child) {
        snprintf(err, errlen, "%s: an empty array: no report", path);
        return -1;
    }
    return 0;
}

void json_file_free(struct json_file *f)
{
    json_free(f->root);
    free(f->text);
    f->root = NULL;
    f->text = NULL;
}
