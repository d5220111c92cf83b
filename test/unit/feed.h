/* test/unit/feed.h — one input fed to a parser every way that matters: whole, one
 * byte at a time, in 7-byte chunks, and split in two at every byte (an empty
 * first or last piece included). A parser that keeps state between feeds must
 * give the same result every way; where it does not, the failing way says
 * which piece boundary it cannot take. */
#ifndef SHB_FEED_H
#define SHB_FEED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "t.h"

enum feed_kind { FEED_WHOLE, FEED_BYTES, FEED_CHUNKS, FEED_SPLIT, FEED_KINDS };

/* One way of cutting n bytes into pieces. Piece i (0 <= i <= ncuts) is
 * [cuts[i - 1], cuts[i]), with cuts[-1] = 0 and cuts[ncuts] = n; a split
 * at 0 or n has one empty piece. */
struct feed_way {
    enum feed_kind kind;
    const char *name; /* "whole", "byte by byte", "7-byte chunks", "split at 12" */
    size_t chunk;     /* FEED_BYTES, FEED_CHUNKS: the piece size (1, 7) */
    size_t split;     /* FEED_SPLIT: where */
    size_t n;
    const size_t *cuts;
    size_t ncuts;
};

/* Piece i of way w: its start in *at, its length returned. */
static inline size_t feed_piece(const struct feed_way *w, size_t i, size_t *at)
{
    *at = i == 0 ? 0 : w->cuts[i - 1];
    return (i < w->ncuts ? w->cuts[i] : w->n) - *at;
}

/* The whole input as one piece. */
static inline struct feed_way feed_whole(size_t n)
{
    return (struct feed_way){ .kind = FEED_WHOLE, .name = "whole", .n = n };
}

/* The ways, numbered: 0 whole, 1 byte by byte, 2 in 7-byte chunks, 3 + k
 * split in two at k (0 <= k <= n). Fills *w (its cuts in cuts, room for n
 * + 1, its name in name[32]) and returns false for a number past n's last
 * way. Tests that feed several inputs the same way (blocks of a sequence)
 * number the ways themselves; the others call feed_splits. */
static inline bool feed_way(int way, size_t n, size_t *cuts, char *name, struct feed_way *w)
{
    *w = (struct feed_way){ .n = n, .cuts = cuts };
    if (way == 0) {
        w->kind = FEED_WHOLE;
        w->name = "whole";
    } else if (way == 1 || way == 2) {
        w->kind = way == 1 ? FEED_BYTES : FEED_CHUNKS;
        w->name = way == 1 ? "byte by byte" : "7-byte chunks";
        w->chunk = way == 1 ? 1 : 7;
        for (size_t at = w->chunk; at < n; at += w->chunk)
            cuts[w->ncuts++] = at;
    } else if (way >= 3 && (size_t)(way - 3) <= n) {
        w->kind = FEED_SPLIT;
        w->split = (size_t)(way - 3);
        snprintf(name, 32, "split at %zu", w->split);
        w->name = name;
        cuts[w->ncuts++] = w->split;
    } else {
        return false;
    }
    return true;
}

/* Feeds a fresh parser the pieces of b[0..w->n) that w says, and checks what
 * it made of them (quietly: T_QUIET); true when it was right. */
typedef bool feed_fn(void *ctx, const uint8_t *b, const struct feed_way *w);

/* How many ways of each kind failed, and the first split that did. */
struct feed_fails {
    size_t n[FEED_KINDS];
    size_t first_split;
};

/* Runs fn on b[0..n) every way: whole, byte by byte, 7-byte chunks, split
 * in two at every k from 0 to n, or, past dense bytes, at every 37th k only
 * (long inputs). Fills *fails (may be NULL); returns how many ways failed. */
static inline size_t feed_splits_dense(const uint8_t *b, size_t n, size_t dense, feed_fn *fn, void *ctx,
                                       struct feed_fails *fails)
{
    struct feed_fails f = { .n = { 0 }, .first_split = 0 };
    size_t *cuts = t_malloc((n + 1) * sizeof *cuts), total = 0;
    char name[32];
    struct feed_way w;
    for (int way = 0; feed_way(way, n, cuts, name, &w); way += way < 3 || (size_t)(way - 3) < dense ? 1 : 37) {
        if (fn(ctx, b, &w))
            continue;
        if (w.kind == FEED_SPLIT && f.n[FEED_SPLIT] == 0)
            f.first_split = w.split;
        f.n[w.kind]++;
        total++;
    }
    free(cuts);
    if (fails)
        *fails = f;
    return total;
}

static inline size_t feed_splits(const uint8_t *b, size_t n, feed_fn *fn, void *ctx, struct feed_fails *fails)
{
    return feed_splits_dense(b, n, SIZE_MAX, fn, ctx, fails);
}

#endif
