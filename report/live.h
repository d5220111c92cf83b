/* live.h — the live view: one or two lines on stderr while the run goes,
 * when stderr is a terminal (and not --no-progress). The main thread draws
 * it from what the workers publish (worker.h struct worker_live); it is
 * cleared before the report, and stdout only ever holds the report. */
#ifndef SHB_LIVE_H
#define SHB_LIVE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "worker/worker.h"

/* One frame's figures (live_format is pure: the unit test drives it). */
struct live_frame {
    double elapsed_s;      /* since the start */
    double duration_s;     /* -z; 0 for a -n run */
    uint64_t done, goal;   /* -n: measured requests ended so far, and n */
    bool warming;          /* still inside --warmup */
    double rate;           /* requests ended per second over the last second */
    uint64_t ok, errors;   /* measured, so far */
    bool have_latency;     /* the last whole second had responses: p50 and p99 below are theirs */
    uint64_t p50_ns, p99_ns;
    uint64_t conns;        /* open now */
};

/* The frame as terminal output: both lines (each at most width - 1
 * columns, of whole fields: a field that does not fit is left out, and
 * those after it), the cursor back at the first one's start. Returns the length
 * (< cap), or 0 if cap is too small. */
size_t live_format(char *buf, size_t cap, const struct live_frame *f, unsigned width);

/* What erases the frame: each of its lines (erasing the screen from the
 * top would push it into some terminals' scrollback: tmux's), the cursor
 * back where it began, so the report starts there. */
#define LIVE_CLEAR "\r\033[K\n\033[K\033[A\r"

/* Draws on stderr, at most 10 frames a second (every LIVE_PERIOD_NS), until
 * `finished` counts all n workers; then clears. duration_ns: -z, or 0 with
 * goal = -n. */
#define LIVE_PERIOD_NS 200000000ull
void live_run(struct worker *workers, unsigned n, uint64_t start_ns, uint64_t duration_ns, uint64_t goal,
              uint64_t warmup_ns, _Atomic unsigned *finished);

#endif
