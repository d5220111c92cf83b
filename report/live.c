/* live.c — the live view (live.h). Runs on the main thread while the
 * workers run: it only reads what they publish, with atomic loads, so the
 * workers pay nothing but their tick's few stores. */
#define _GNU_SOURCE
#include "report/live.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define BAR 20

/* Appends the formatted text (no escapes inside it) to *p, leaving it
 * NUL-terminated; what does not fit the buffer is cut (only the escapes,
 * a few bytes each, go through here). */
static void put(char **p, char *end, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(char **p, char *end, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(*p, (size_t)(end - *p), fmt, ap);
    va_end(ap);
    if (n > 0)
        *p += (size_t)n < (size_t)(end - *p) ? (size_t)n : (size_t)(end - *p) - 1;
}

/* One visible line, built field by field. A field goes in whole or not at
 * all ("(warm-up)" cut to "(" reads as nothing, "ok 61" cut from "ok 612"
 * as a wrong figure), and once one does not fit the terminal's width no
 * later one goes in either: what shows is always the line's beginning. */
struct line {
    char *p, *end;
    size_t room; /* columns left */
    bool full;
};

static void field(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void field(struct line *l, const char *fmt, ...)
{
    char text[160];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (l->full || n < 0 || (size_t)n >= sizeof text || (size_t)n > l->room || (size_t)n >= (size_t)(l->end - l->p)) {
        l->full = true;
        return;
    }
    memcpy(l->p, text, (size_t)n + 1);
    l->p += n;
    l->room -= (size_t)n;
}

size_t live_format(char *buf, size_t cap, const struct live_frame *f, unsigned width)
{
    if (cap < 64)
        return 0;
    char *p = buf, *end = buf + cap;
    size_t room = width > 1 ? width - 1 : 1;
    double done = f->duration_s > 0 ? f->elapsed_s / f->duration_s
                  : f->goal > 0      ? (double)f->done / (double)f->goal
                                     : 0;
    if (done > 1)
        done = 1;
    char bar[BAR + 1];
    int full = (int)(done * BAR + 0.5);
    for (int i = 0; i < BAR; i++)
        bar[i] = i < full ? '#' : '.';
    bar[BAR] = '\0';
    put(&p, end, "\r\033[K");
    struct line l = { .p = p, .end = end - 16, .room = room }; /* 16: the escapes after it */
    field(&l, "[%s]", bar);
    if (f->duration_s > 0) {
        field(&l, " %.1f s of %.1f s", f->elapsed_s, f->duration_s);
    } else {
        /* "250 of 1000" alone still says how far a narrow terminal got */
        field(&l, " %llu of %llu", (unsigned long long)f->done, (unsigned long long)f->goal);
        field(&l, " requests");
        field(&l, ", %.1f s", f->elapsed_s);
    }
    if (f->warming)
        field(&l, " (warm-up)");
    p = l.p;
    put(&p, end, "\n\033[K");
    l = (struct line){ .p = p, .end = end - 16, .room = room };
    field(&l, "%.0f req/s", f->rate);
    /* During the warm-up nothing is counted yet: "-", not a measured 0. */
    if (f->warming) {
        field(&l, "  ok -");
        field(&l, "  errors -");
    } else {
        field(&l, "  ok %llu", (unsigned long long)f->ok);
        field(&l, "  errors %llu", (unsigned long long)f->errors);
    }
    /* Before a second with a response there is no latency: "-", not 0.000. */
    if (f->have_latency) {
        field(&l, "  p50 %.3f ms", (double)f->p50_ns / 1e6);
        field(&l, "  p99 %.3f ms", (double)f->p99_ns / 1e6);
    } else {
        field(&l, "  p50 -");
        field(&l, "  p99 -");
    }
    field(&l, "  %llu connections", (unsigned long long)f->conns);
    p = l.p;
    put(&p, end, "\033[A\r");
    return (size_t)(p - buf);
}

static unsigned term_width(void)
{
    struct winsize ws;
    return ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
}

static void write_all(const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, s, n);
        if (w <= 0)
            return; /* a terminal that went away: the run goes on without the view */
        s += w;
        n -= (size_t)w;
    }
}

/* Worker i's last whole second of latencies, added to e (a consistent copy:
 * retried while the worker is writing it). */
static bool add_second(struct worker_live *v, struct tl_entry *e)
{
    static uint32_t copy[TL_BUCKETS];
    for (int tries = 0; tries < 8; tries++) {
        uint32_t s1 = atomic_load_explicit(&v->seq, memory_order_acquire);
        if (s1 == 0)
            return false; /* no whole second yet */
        if (s1 & 1)
            continue;
        for (unsigned b = 0; b < TL_BUCKETS; b++)
            copy[b] = atomic_load_explicit(&v->lat[b], memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&v->seq, memory_order_relaxed) != s1)
            continue;
        for (unsigned b = 0; b < TL_BUCKETS; b++) {
            e->lat[b] += copy[b];
            e->ok += copy[b];
        }
        return true;
    }
    return false;
}

/* The last second's rate comes from the totals of about a second ago:
 * RING frames back. */
#define RING (1000000000ull / LIVE_PERIOD_NS + 1)

void live_run(struct worker *workers, unsigned n, uint64_t start_ns, uint64_t duration_ns, uint64_t goal,
              uint64_t warmup_ns, _Atomic unsigned *finished)
{
    static struct tl_entry second;
    uint64_t ring_total[RING] = { 0 }, ring_at[RING];
    unsigned frames = 0;
    for (unsigned i = 0; i < RING; i++)
        ring_at[i] = start_ns;
    while (atomic_load_explicit(finished, memory_order_acquire) < n) {
        struct timespec pause = { 0, (long)LIVE_PERIOD_NS };
        nanosleep(&pause, NULL); /* a signal (Ctrl-C) cuts it short: the next frame comes sooner */
        if (atomic_load_explicit(finished, memory_order_acquire) >= n)
            break;
        uint64_t now = monotonic_ns();
        struct live_frame f = { .elapsed_s = (double)(now - start_ns) / 1e9,
                                .duration_s = (double)duration_ns / 1e9,
                                .goal = goal,
                                .warming = now - start_ns < warmup_ns };
        memset(&second, 0, sizeof second);
        uint64_t warm = 0;
        for (unsigned i = 0; i < n; i++) {
            struct worker_live *v = &workers[i].live;
            f.ok += atomic_load_explicit(&v->ok, memory_order_relaxed);
            f.errors += atomic_load_explicit(&v->errors, memory_order_relaxed);
            warm += atomic_load_explicit(&v->warmup, memory_order_relaxed);
            f.conns += atomic_load_explicit(&v->conns_open, memory_order_relaxed);
            f.have_latency |= add_second(v, &second);
        }
        f.done = f.ok + f.errors;
        uint64_t total = f.done + warm;
        unsigned slot = frames % RING, oldest = (frames + 1) % RING;
        ring_total[slot] = total;
        ring_at[slot] = now;
        frames++;
        uint64_t then = frames >= RING ? ring_at[oldest] : start_ns;
        uint64_t before = frames >= RING ? ring_total[oldest] : 0;
        f.rate = now > then ? (double)(total - before) * 1e9 / (double)(now - then) : 0;
        f.have_latency &= second.ok > 0; /* a whole second, with a response in it */
        if (f.have_latency) {
            f.p50_ns = tl_percentile(&second, 50);
            f.p99_ns = tl_percentile(&second, 99);
        }
        char buf[1200];
        size_t len = live_format(buf, sizeof buf, &f, term_width());
        write_all(buf, len);
    }
    if (frames)
        write_all(LIVE_CLEAR, sizeof LIVE_CLEAR - 1);
}
