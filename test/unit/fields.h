/* test/unit/fields.h — decoded header fields as text ("name: value\n" each),
 * for the HPACK and QPACK tests: `collect` is a field callback of either
 * decoder (hpack_field_fn, qpack_field_fn). */
#ifndef SHB_TEST_FIELDS_H
#define SHB_TEST_FIELDS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct list {
    char text[1 << 17];
    size_t len;
    int n;
};

static inline int collect(void *ctx, const uint8_t *name, size_t nlen, const uint8_t *value, size_t vlen)
{
    struct list *l = ctx;
    if (l->len + nlen + vlen + 3 >= sizeof l->text)
        return 99;
    memcpy(l->text + l->len, name, nlen);
    l->len += nlen;
    memcpy(l->text + l->len, ": ", 2);
    l->len += 2;
    memcpy(l->text + l->len, value, vlen);
    l->len += vlen;
    l->text[l->len++] = '\n';
    l->text[l->len] = '\0';
    l->n++;
    return 0;
}

static inline struct list *list_new(void)
{
    struct list *l = calloc(1, sizeof *l);
    if (!l) {
        printf("out of memory\n");
        exit(2);
    }
    return l;
}

#endif
