/* worker/meter.h — what one worker measures, in one place: each response
 * and error into the run's figures (stats.h: the counters, the latency,
 * first-byte, -q service and lag histograms, the timeline, the --hdr-log
 * seconds), the --warmup switch that keeps the first requests out of them,
 * the timeline's and the hdr-log's second boundaries, and what the live
 * view reads. The loop (worker.c) calls it; it does no I/O and reads no
 * clock: the loop passes its time, read once per turn. Private to the
 * worker. */
#ifndef SHB_WORKER_METER_H
#define SHB_WORKER_METER_H

#include <stdbool.h>
#include <stdint.h>

#include "worker.h"

struct meter {
    struct worker *w;
    bool paced;                /* -q: service time and lag are recorded too */
    bool warming;              /* --warmup: before warm_end (checked once per turn) */
    uint64_t warm_end;
    /* The timeline (stats.timeline): it starts where the measured window
     * does, and moves to the next entry at the first turn past tl_next. */
    uint64_t tl_from, tl_next;
    uint64_t tl_bytes;         /* stats.bytes_recv already put in an entry */
    /* --hdr-log (hdr: &w->hdr, else NULL): its own second boundaries, on
     * the timeline's start, since the timeline's entries grow longer in
     * long runs; hdr_next is UINT64_MAX without it. */
    struct hdrlog_thread *hdr;
    uint64_t hdr_next;
};

/* Before the run: the worker's stats are initialised, and w->hdr when
 * cfg.hdr_log. */
void meter_init(struct meter *m, struct worker *w, bool paced);

/* The run starts at start_ns (the warm-up, if any, with it). */
void meter_start(struct meter *m, uint64_t start_ns);

/* A response at now to a request due at due_ns, sent at sent_ns, whose
 * first byte came at first_ns (see loop_ok). During the warm-up only
 * counted in stats.warmup. */
void meter_ok(struct meter *m, uint64_t now, uint16_t status, uint64_t due_ns, uint64_t sent_ns, uint64_t first_ns);

/* A request failed as kind. */
void meter_error(struct meter *m, enum err_kind kind);

/* Once per loop turn, after the clock was read: the warm-up's end, and the
 * timeline's and hdr-log's next second. */
void meter_turn_slow(struct meter *m, uint64_t now);
static inline void meter_turn(struct meter *m, uint64_t now)
{
    if (m->warming ? now >= m->warm_end : now >= m->tl_next || now >= m->hdr_next)
        meter_turn_slow(m, now);
}

/* On the tick, with the live view: what it shows (relaxed stores). */
void meter_publish(struct meter *m, uint32_t conns_open);

/* The run is over: the last entry's bytes, the hdr-log's last second. */
void meter_finish(struct meter *m);

#endif
