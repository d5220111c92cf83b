/* worker/meter.c — what one worker measures (meter.h). */
#include "meter.h"

#include <stdatomic.h>

void meter_init(struct meter *m, struct worker *w, bool paced)
{
    *m = (struct meter){ .w = w, .paced = paced, .hdr = w->cfg.hdr_log ? &w->hdr : NULL };
}

/* The timeline's first entry starts at `from`, the measured window's start. */
static void timeline_start(struct meter *m, uint64_t from)
{
    m->tl_from = from;
    m->tl_next = from + 1000000000ull;
    m->tl_bytes = 0;
    m->hdr_next = m->hdr ? m->tl_next : UINT64_MAX;
}

void meter_start(struct meter *m, uint64_t start_ns)
{
    m->warming = m->w->cfg.warmup_ns != 0;
    m->warm_end = start_ns + m->w->cfg.warmup_ns;
    timeline_start(m, start_ns);
}

void meter_ok(struct meter *m, uint64_t now, uint16_t status, uint64_t due_ns, uint64_t sent_ns, uint64_t first_ns)
{
    struct stats *s = &m->w->stats;
    if (m->warming) {
        s->warmup.ok++;
        return;
    }
    uint64_t latency = now - due_ns;
    s->ok++;
    if (status < STATUS_MAX)
        s->status[status]++;
    hist_record(&s->latency, latency);
#ifndef SHB_BENCH_NO_FIRST_BYTE /* make bench's yardstick (Makefile) */
    hist_record(&s->phases.first_byte, first_ns - sent_ns);
#else
    (void)first_ns;
#endif
    tl_ok(&s->timeline, latency);
    if (m->paced) {
        uint64_t lag = sent_ns - due_ns;
        hist_record(&s->pace.service, now - sent_ns);
        hist_record(&s->pace.lag, lag);
        s->pace.late += lag > PACE_LATE_NS;
    }
    /* --hdr-log: the same values into this second's histograms (the one
     * branch a run without it pays). */
    if (m->hdr) {
        hdrlog_record(m->hdr, HDRLOG_LATENCY, latency);
        if (m->paced)
            hdrlog_record(m->hdr, HDRLOG_SERVICE, now - sent_ns);
    }
}

void meter_error(struct meter *m, enum err_kind kind)
{
    struct stats *s = &m->w->stats;
    if (m->warming) {
        s->warmup.errors++;
        return;
    }
    s->errors[kind]++;
    tl_error(&s->timeline);
}

/* ---- the live view ------------------------------------------------------- */

void meter_publish(struct meter *m, uint32_t conns_open)
{
    const struct stats *s = &m->w->stats;
    struct worker_live *v = &m->w->live;
    atomic_store_explicit(&v->ok, s->ok, memory_order_relaxed);
    atomic_store_explicit(&v->errors, stats_errors(s), memory_order_relaxed);
    atomic_store_explicit(&v->warmup, s->warmup.ok + s->warmup.errors, memory_order_relaxed);
    atomic_store_explicit(&v->conns_open, conns_open, memory_order_relaxed);
}

/* A second of the timeline is over: its latencies for the live view. A
 * sequence lock: the reader (live.c) retries when seq was odd or changed. */
static void live_second(struct worker *w, const struct tl_entry *e)
{
    struct worker_live *v = &w->live;
    uint32_t seq = atomic_load_explicit(&v->seq, memory_order_relaxed);
    atomic_store_explicit(&v->seq, seq + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    for (unsigned b = 0; b < TL_BUCKETS; b++)
        atomic_store_explicit(&v->lat[b], e->lat[b], memory_order_relaxed);
    atomic_store_explicit(&v->seq, seq + 2, memory_order_release);
}

/* ---- seconds --------------------------------------------------------------- */

/* The bytes received since the last call go to the current entry. */
static void timeline_bytes(struct meter *m)
{
    struct stats *s = &m->w->stats;
    s->timeline.e[s->timeline.n - 1].bytes_recv += s->bytes_recv - m->tl_bytes;
    m->tl_bytes = s->bytes_recv;
}

/* The first turn past the current entry's end: the entry holding now is
 * the current one (entries with nothing in them are skipped, left zero). */
static void timeline_step(struct meter *m, uint64_t now)
{
    struct timeline *t = &m->w->stats.timeline;
    if (m->w->cfg.live)
        live_second(m->w, &t->e[t->n - 1]);
    timeline_bytes(m);
    tl_move_to(t, now - m->tl_from);
    m->tl_next = m->tl_from + ((uint64_t)t->n << t->shift) * 1000000000ull;
}

/* --hdr-log: the first turn past the current second's end. The second
 * holding now becomes the current one (seconds with nothing in them are
 * skipped: the log writes them empty). */
static void hdr_step(struct meter *m, uint64_t now)
{
    uint64_t second = (now - m->tl_from) / 1000000000ull;
    hdrlog_move_to(m->hdr, second);
    m->hdr_next = m->tl_from + (second + 1) * 1000000000ull;
}

/* The warm-up is over (or the run ended during it): what was sent and
 * received so far belongs to it, and the measured bytes start at zero. */
static void warmup_over(struct meter *m)
{
    struct stats *s = &m->w->stats;
    m->warming = false;
    s->warmup.bytes_sent = s->bytes_sent;
    s->warmup.bytes_recv = s->bytes_recv;
    s->bytes_sent = s->bytes_recv = 0;
    timeline_start(m, m->warm_end);
}

void meter_turn_slow(struct meter *m, uint64_t now)
{
    if (m->warming && now >= m->warm_end)
        warmup_over(m);
    if (!m->warming && now >= m->tl_next)
        timeline_step(m, now);
    if (!m->warming && now >= m->hdr_next)
        hdr_step(m, now);
}

void meter_finish(struct meter *m)
{
    if (m->warming)
        warmup_over(m);
    timeline_bytes(m);
    if (m->hdr)
        hdrlog_finish(m->hdr);
}
