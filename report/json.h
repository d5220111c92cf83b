/* json.h — an RFC 8259 reader for `shb merge`: reports back into a tree.
 *
 * The text is parsed in place: strings are unescaped into the buffer they
 * came in (never longer than their escaped form), numbers are kept as their
 * literal so integers and decimal seconds convert exactly. Nesting is
 * bounded (JSON_MAX_DEPTH), so no input can exhaust the stack. Nodes are
 * malloc'd; this runs once per file, never on a worker. */
#ifndef SHB_JSON_H
#define SHB_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 64

enum json_type { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
    enum json_type type;
    const char *text;   /* a string's value (NUL-terminated, may hold NUL bytes: see len), a number's literal */
    size_t len;
    const char *key;    /* a member's name (NUL-terminated), else NULL */
    size_t key_len;
    struct json *child; /* an array's or object's first element */
    struct json *next;  /* the next element of the enclosing array or object */
};

/* Parses the n bytes at text (changed in place: it must stay alive and
 * writable while the tree is used; text[n] need not be NUL). Returns the
 * root, or NULL with "line L, column C: what" in err. */
struct json *json_parse(char *text, size_t n, char *err, size_t errlen);
/* The same for text holding one or more values one after another, as
 * files concatenated (`cat a.json b.json`) hold them: the first value,
 * the others linked to it through next (json_free frees them all). */
struct json *json_parse_values(char *text, size_t n, char *err, size_t errlen);
void json_free(struct json *root);

/* An object's member by name (the first of that name), or NULL. */
const struct json *json_get(const struct json *obj, const char *key);
/* json_get through a path of names: json_path(r, "latencySeconds", "histogram", NULL). */
const struct json *json_path(const struct json *obj, ...) __attribute__((sentinel));

/* A number that is a whole number from 0 to 2^64-1, exactly: 0 or -1. */
int json_to_u64(const struct json *v, uint64_t *out);
/* A number of seconds, non-negative with at most 9 decimals (as the
 * report writes them), as exact nanoseconds: 0 or -1. */
int json_to_ns(const struct json *v, uint64_t *out);
/* Any number as the nearest double: 0 or -1. */
int json_to_double(const struct json *v, double *out);

#endif
