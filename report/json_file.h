/* json_file.h — a file of JSON reports, read and parsed (shb merge, shb
 * report): one report, an array of them (-j with several URLs), or several
 * values one after another (`cat a.json b.json`), made one array. "-" is
 * stdin. The tree's strings live in the file's text, kept with it. */
#ifndef SHB_JSON_FILE_H
#define SHB_JSON_FILE_H

#include <stddef.h>

#include "report/json.h"

/* One file, read and parsed: its text holds the tree's strings. */
struct json_file {
    const char *path;
    char *text;
    struct json *root;
};

/* A file holds one report, or an array of them (-j with several URLs);
 * several values one after another are made one array (as_one_array). */
#define JSON_FILE_EACH(r, root) \
    for (const struct json *r = (root)->type == JSON_ARRAY ? (root)->child : (root); r; \
         r = (root)->type == JSON_ARRAY ? r->next : NULL)

/* Reads and parses path into f. 0, or -1 with a one-line reason naming
 * the file in err; json_file_free frees f either way. */
int json_file_load(const char *path, struct json_file *f, char *err, size_t errlen);
void json_file_free(struct json_file *f);

#endif
