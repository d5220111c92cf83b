/* test/unit/unit_worker.c — the request accounting of worker.c (worker_loop.h):
 * every request taken from the budget ends exactly once, as a response, an
 * error of one kind, or (when the run ends first) in flight.
 *
 * A struct loop is built by hand, as worker_prepare and worker_run would
 * leave it but without a ring: the functions under test touch the ring
 * only to arm the -q pace timer, and a test that takes a request not yet
 * due marks that timer as armed already. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "worker/pace.h"
#include "stats/stats.h"
#include "t.h"
#include "worker/worker.h"
#include "worker/loop.h"

#define START 1000000000000ull /* the run's start on the loop's clock */

struct fx {
    struct worker w;
    struct loop l;
    struct pace_rate rate;
    uint64_t budget; /* -n: this worker's share */
};

/* A worker of `connections` connections with a -n budget (timed: -z, and
 * budget is ignored), warming up (--warmup) or not. */
static struct fx *fx_new(uint64_t budget, bool timed, bool warming)
{
    struct fx *f = calloc(1, sizeof *f);
    if (!f || stats_init(&f->w.stats) < 0) {
        printf("out of memory\n");
        exit(2);
    }
    f->budget = budget;
    f->w.cfg.connections = 4;
    f->w.cfg.budget = budget;
    f->w.cfg.timed = timed;
    f->w.cfg.warmup_ns = warming ? 1000000000ull : 0;
    f->l.w = &f->w;
    f->l.cfg = &f->w.cfg;
    f->l.ring.ring_fd = -1;
    /* What worker_run sets before the loop's first turn. */
    f->l.start_ns = f->l.now = f->w.end_ns = START;
    f->l.budget_left = timed ? 0 : budget;
    meter_init(&f->l.meter, &f->w, false);
    meter_start(&f->l.meter, START);
    if (loop_targets_init(&f->l, 1u << 16) < 0) {
        printf("out of memory\n");
        exit(2);
    }
    return f;
}

/* -q at `rate` requests/s, this worker taking every request of the
 * schedule from first on, stride apart. */
static void fx_pace(struct fx *f, double rate, uint32_t first, uint32_t stride)
{
    f->rate = (struct pace_rate){ .from = rate, .to = rate };
    f->w.cfg.rate = &f->rate;
    f->w.cfg.pace_first = first;
    f->w.cfg.pace_stride = stride;
    f->l.paced = true;
    f->l.meter.paced = true;
    f->l.waiters = calloc(f->w.cfg.connections, sizeof *f->l.waiters);
    f->l.waiting = calloc(f->w.cfg.connections, 1);
    if (!f->l.waiters || !f->l.waiting || stats_init_pace(&f->w.stats) < 0) {
        printf("out of memory\n");
        exit(2);
    }
    f->l.pace_index = first;
    f->l.pace_due = START + pace_due_ns(&f->rate, first);
}

static void fx_free(struct fx *f)
{
    stats_free(&f->w.stats);
    free(f->l.waiters);
    free(f->l.waiting);
    free(f->l.retry_nodes);
    free(f);
}

static uint64_t errors(const struct fx *f) { return stats_errors(&f->w.stats); }

static uint64_t waiting_sum(const struct fx *f)
{
    uint64_t n = 0;
    for (unsigned r = 0; r <= MAX_RETRIES; r++)
        n += f->l.retry_waiting[r];
    return n;
}

/* -n: the budget is what is left of it, what ended measured and what is in
 * flight; and the retry counts add up. */
static bool conserved(const struct fx *f)
{
    return f->l.budget_left + f->w.stats.ok + errors(f) + f->l.in_flight == f->budget &&
           waiting_sum(f) == f->l.retry_total && f->l.retry_total <= f->l.in_flight;
}

#define CONSERVED(name, f)                                                                                       \
    T_CHECK(name, conserved(f), "budget %llu: left %llu + ok %llu + errors %llu + in flight %llu; waiting %llu, " \
            "retry_total %llu", (unsigned long long)(f)->budget, (unsigned long long)(f)->l.budget_left,         \
            (unsigned long long)(f)->w.stats.ok, (unsigned long long)errors(f),                                  \
            (unsigned long long)(f)->l.in_flight, (unsigned long long)waiting_sum(f),                            \
            (unsigned long long)(f)->l.retry_total)

/* ------------------------------------------------------------ -n budgets */

static void test_budget(void)
{
    struct fx *f = fx_new(3, false, false);
    struct taken t[4];
    bool took = loop_take(&f->l, &t[0]) && loop_take(&f->l, &t[1]) && loop_take(&f->l, &t[2]);
    T_CHECK("budget: -n 3 gives three requests, each new and due now",
            took && t[0].retries == 0 && t[2].retries == 0 && t[2].due_ns == START, "took %d retries %u due %llu",
            took, t[2].retries, (unsigned long long)t[2].due_ns);
    T_CHECK("budget: then none, and no work left for a new connection",
            !loop_take(&f->l, &t[3]) && !loop_work_left(&f->l) && f->l.budget_left == 0 && f->l.in_flight == 3,
            "left %llu in flight %llu", (unsigned long long)f->l.budget_left, (unsigned long long)f->l.in_flight);
    CONSERVED("budget: three taken: conserved", f);

    f->l.now = START + 5000;
    loop_ok(&f->l, 200, &(struct req_end){ .due_ns = t[0].due_ns, .sent_ns = START + 1000, .first_ns = START + 3000 });
    loop_ok(&f->l, 404, &(struct req_end){ .due_ns = t[1].due_ns, .sent_ns = START + 1000, .first_ns = START + 3000 });
    loop_error(&f->l, ERR_RESET, &(struct req_end){ 0 });
    struct stats *s = &f->w.stats;
    T_CHECK("budget: two responses and an error end all three",
            s->ok == 2 && s->status[200] == 1 && s->status[404] == 1 && s->errors[ERR_RESET] == 1 &&
                f->l.in_flight == 0 && errors(f) == 1,
            "ok %llu errors %llu in flight %llu", (unsigned long long)s->ok, (unsigned long long)errors(f),
            (unsigned long long)f->l.in_flight);
    T_CHECK("budget: latency from due, first byte from sent; the worker's end is now",
            s->latency.count == 2 && s->phases.first_byte.count == 2 && s->timeline.e[0].ok == 2 &&
                s->timeline.e[0].errors == 1 && f->w.end_ns == START + 5000,
            "latencies %llu first bytes %llu timeline %llu/%llu end %llu", (unsigned long long)s->latency.count,
            (unsigned long long)s->phases.first_byte.count, (unsigned long long)s->timeline.e[0].ok,
            (unsigned long long)s->timeline.e[0].errors, (unsigned long long)f->w.end_ns);
    CONSERVED("budget: all ended: conserved", f);
    fx_free(f);

    f = fx_new(0, true, false);
    bool all = true;
    for (int i = 0; i < 1000; i++)
        all &= loop_take(&f->l, &t[0]);
    T_CHECK("budget: -z takes without end, the budget untouched, work always left",
            all && f->l.in_flight == 1000 && f->l.budget_left == 0 && loop_work_left(&f->l), "in flight %llu",
            (unsigned long long)f->l.in_flight);
    fx_free(f);
}

/* ------------------------------------------------------------ retries */

static void test_retries(void)
{
    struct fx *f = fx_new(1, false, false);
    struct taken t;
    bool ok = loop_take(&f->l, &t);
    unsigned sends = 1;
    bool in_order = true;
    /* Refused every time: sent again with one more try each time ... */
    while (ok && f->l.in_flight) {
        loop_retry(&f->l, t.retries, true, ERR_REFUSED, &(struct req_end){ 0 });
        in_order &= conserved(f);
        if (f->l.retry_total == 0)
            break;
        in_order &= loop_work_left(&f->l) && f->l.retry_waiting[t.retries + 1] == 1;
        ok = loop_take(&f->l, &t);
        in_order &= t.retries == sends && f->l.retry_total == 0 && f->l.budget_left == 0;
        sends++;
    }
    T_CHECK("retry: a request refused every time is sent 1 + MAX_RETRIES times, its tries counted up",
            ok && in_order && sends == 1 + MAX_RETRIES, "sends %u in order %d", sends, in_order);
    T_CHECK("retry: ... then it is one error of the kind given, and the -n run is over",
            f->w.stats.errors[ERR_REFUSED] == 1 && errors(f) == 1 && f->l.in_flight == 0 && !loop_work_left(&f->l),
            "errors %llu in flight %llu", (unsigned long long)errors(f), (unsigned long long)f->l.in_flight);
    CONSERVED("retry: after MAX_RETRIES: conserved", f);
    fx_free(f);

    f = fx_new(1, false, false);
    ok = loop_take(&f->l, &t);
    for (int i = 0; ok && i < 10 * MAX_RETRIES; i++) {
        loop_retry(&f->l, t.retries, false, ERR_REFUSED, &(struct req_end){ 0 });
        ok = loop_take(&f->l, &t) && t.retries == 0;
    }
    T_CHECK("retry: uncounted retries do not count towards MAX_RETRIES (150 of them)",
            ok && errors(f) == 0 && f->l.in_flight == 1 && f->l.retry_total == 0, "errors %llu",
            (unsigned long long)errors(f));
    f->l.now = START + 1;
    loop_ok(&f->l, 200, &(struct req_end){ .due_ns = t.due_ns, .sent_ns = START, .first_ns = START });
    T_CHECK("retry: ... and it still ends once, as a response", f->w.stats.ok == 1 && f->l.in_flight == 0,
            "ok %llu", (unsigned long long)f->w.stats.ok);
    CONSERVED("retry: uncounted: conserved", f);
    fx_free(f);

    /* The most-tried first, and a retry before the budget; a retried
     * request's clock starts again. */
    f = fx_new(5, false, false);
    struct taken a, b, c;
    loop_take(&f->l, &a);
    loop_take(&f->l, &b);
    loop_take(&f->l, &c);
    loop_retry(&f->l, 0, true, ERR_REFUSED, &(struct req_end){ 0 });  /* a: waits with 1 try */
    loop_retry(&f->l, 4, true, ERR_REFUSED, &(struct req_end){ 0 });  /* b (tried 4 times): waits with 5 */
    loop_retry(&f->l, 2, false, ERR_REFUSED, &(struct req_end){ 0 }); /* c: waits with 2 */
    f->l.now = START + 777;
    struct taken x[4];
    bool took = loop_take(&f->l, &x[0]) && loop_take(&f->l, &x[1]) && loop_take(&f->l, &x[2]) &&
                loop_take(&f->l, &x[3]);
    T_CHECK("retry: the most-tried first, then the others, then the budget",
            took && x[0].retries == 5 && x[1].retries == 2 && x[2].retries == 1 && x[3].retries == 0 &&
                f->l.budget_left == 1 && f->l.in_flight == 4,
            "took %d: %u %u %u %u, left %llu", took, x[0].retries, x[1].retries, x[2].retries, x[3].retries,
            (unsigned long long)f->l.budget_left);
    T_CHECK("retry: a retried request is due when taken again", x[0].due_ns == START + 777, "due %llu",
            (unsigned long long)x[0].due_ns);
    CONSERVED("retry: three waiting, taken again: conserved", f);
    fx_free(f);

    /* A retry keeps a -n run going when the budget is spent. */
    f = fx_new(1, false, false);
    loop_take(&f->l, &t);
    loop_retry(&f->l, 0, true, ERR_REFUSED, &(struct req_end){ 0 });
    T_CHECK("retry: with the budget spent a waiting retry is work left", f->l.budget_left == 0 &&
            loop_work_left(&f->l) && loop_take(&f->l, &t) && t.retries == 1 && !loop_work_left(&f->l), "no");
    fx_free(f);
}

/* ------------------------------------------------------------ loop_charge */

static void test_charge(void)
{
    struct fx *f = fx_new(2, false, false);
    struct taken t;
    loop_take(&f->l, &t);
    loop_retry(&f->l, 3, true, ERR_REFUSED, &(struct req_end){ 0 });
    loop_charge(&f->l, ERR_CONNECT, 0);
    T_CHECK("charge: a waiting retry is charged first, the budget untouched",
            f->l.retry_total == 0 && f->l.budget_left == 1 && f->w.stats.errors[ERR_CONNECT] == 1 &&
                f->l.in_flight == 0,
            "retries %llu left %llu connect errors %llu", (unsigned long long)f->l.retry_total,
            (unsigned long long)f->l.budget_left, (unsigned long long)f->w.stats.errors[ERR_CONNECT]);
    loop_charge(&f->l, ERR_CONNECT_TIMEOUT, 0);
    T_CHECK("charge: else one request from the budget, counted as the kind given",
            f->l.budget_left == 0 && f->w.stats.errors[ERR_CONNECT_TIMEOUT] == 1 && f->l.in_flight == 0, "left %llu",
            (unsigned long long)f->l.budget_left);
    loop_charge(&f->l, ERR_CONNECT, 0);
    T_CHECK("charge: with nothing left it costs nothing: a dead server lets -n end",
            errors(f) == 2 && !loop_work_left(&f->l), "errors %llu", (unsigned long long)errors(f));
    CONSERVED("charge: conserved", f);
    fx_free(f);

    f = fx_new(0, true, false);
    for (int i = 0; i < 10; i++)
        loop_charge(&f->l, ERR_CONNECT, 0);
    T_CHECK("charge: -z: each charge is one error, nothing left in flight",
            f->w.stats.errors[ERR_CONNECT] == 10 && f->l.in_flight == 0 && loop_work_left(&f->l), "errors %llu",
            (unsigned long long)f->w.stats.errors[ERR_CONNECT]);
    fx_free(f);
}

/* ------------------------------------------------------------ --warmup */

static void test_warmup(void)
{
    struct fx *f = fx_new(2, false, true);
    struct taken t;
    loop_take(&f->l, &t);
    loop_take(&f->l, &t);
    f->l.now = START + 10;
    loop_ok(&f->l, 200, &(struct req_end){ .due_ns = START, .sent_ns = START, .first_ns = START });
    loop_error(&f->l, ERR_TIMEOUT, &(struct req_end){ 0 });
    struct stats *s = &f->w.stats;
    T_CHECK("warmup: a response and an error during it go to stats.warmup only",
            s->warmup.ok == 1 && s->warmup.errors == 1 && s->ok == 0 && errors(f) == 0 && s->latency.count == 0 &&
                s->timeline.e[0].ok == 0 && s->timeline.e[0].errors == 0 && f->w.end_ns == START,
            "warmup %llu/%llu measured %llu/%llu", (unsigned long long)s->warmup.ok,
            (unsigned long long)s->warmup.errors, (unsigned long long)s->ok, (unsigned long long)errors(f));
    T_CHECK("warmup: ... and give the -n budget back", f->l.budget_left == 2 && f->l.in_flight == 0 &&
            loop_work_left(&f->l), "left %llu", (unsigned long long)f->l.budget_left);
    CONSERVED("warmup: conserved", f);

    loop_take(&f->l, &t);
    loop_charge(&f->l, ERR_CONNECT, 0);
    loop_take(&f->l, &t);
    loop_retry(&f->l, MAX_RETRIES, true, ERR_REFUSED, &(struct req_end){ 0 });
    T_CHECK("warmup: a charge and a retry past MAX_RETRIES during it are warm-up errors too",
            s->warmup.errors == 3 && errors(f) == 0 && f->l.budget_left == 1 && f->l.in_flight == 1,
            "warmup errors %llu left %llu in flight %llu", (unsigned long long)s->warmup.errors,
            (unsigned long long)f->l.budget_left, (unsigned long long)f->l.in_flight);
    CONSERVED("warmup: charge and retry: conserved", f);

    /* Over: a request taken during the warm-up, ending after it, counts. */
    f->l.meter.warming = false;
    loop_ok(&f->l, 200, &(struct req_end){ .due_ns = START, .sent_ns = START, .first_ns = START });
    loop_take(&f->l, &t);
    loop_ok(&f->l, 200, &(struct req_end){ .due_ns = START, .sent_ns = START, .first_ns = START });
    T_CHECK("warmup: after it ends, responses are measured and the budget runs out",
            s->ok == 2 && s->warmup.ok == 1 && f->l.budget_left == 0 && f->l.in_flight == 0 &&
                !loop_work_left(&f->l),
            "ok %llu left %llu", (unsigned long long)s->ok, (unsigned long long)f->l.budget_left);
    CONSERVED("warmup: over: conserved", f);
    fx_free(f);

    f = fx_new(0, true, true);
    loop_take(&f->l, &t);
    loop_ok(&f->l, 200, &(struct req_end){ .due_ns = START, .sent_ns = START, .first_ns = START });
    T_CHECK("warmup: -z has no budget to give back", f->w.stats.warmup.ok == 1 && f->l.budget_left == 0 &&
            f->l.in_flight == 0, "left %llu", (unsigned long long)f->l.budget_left);
    fx_free(f);
}

/* ------------------------------------------------------------ stopping */

static void test_stopping(void)
{
    struct fx *f = fx_new(10, false, false);
    struct taken t;
    loop_take(&f->l, &t);
    loop_take(&f->l, &t);
    loop_take(&f->l, &t);
    loop_retry(&f->l, 0, true, ERR_REFUSED, &(struct req_end){ 0 });
    f->l.stopping = true;
    T_CHECK("stop: nothing is taken, not even a waiting retry, and no work is left",
            !loop_take(&f->l, &t) && !loop_work_left(&f->l) && f->l.retry_total == 1 && f->l.budget_left == 7,
            "retries %llu left %llu", (unsigned long long)f->l.retry_total, (unsigned long long)f->l.budget_left);
    loop_retry(&f->l, 0, true, ERR_REFUSED, &(struct req_end){ 0 });
    loop_retry(&f->l, MAX_RETRIES, true, ERR_REFUSED, &(struct req_end){ 0 });
    T_CHECK("stop: a request retried after the run's end stays in flight (at MAX_RETRIES too)",
            f->l.in_flight == 3 && f->l.retry_total == 1 && errors(f) == 0, "in flight %llu retries %llu errors %llu",
            (unsigned long long)f->l.in_flight, (unsigned long long)f->l.retry_total, (unsigned long long)errors(f));
    loop_charge(&f->l, ERR_CONNECT, 0);
    T_CHECK("stop: a charge costs nothing", errors(f) == 0 && f->l.budget_left == 7 && f->l.retry_total == 1,
            "errors %llu", (unsigned long long)errors(f));
    CONSERVED("stop: conserved, the unsent budget left over", f);
    fx_free(f);
}

/* ------------------------------------------------------------ -q */

static void test_paced(void)
{
    struct fx *f = fx_new(3, false, false);
    fx_pace(f, 1000, 1, 2); /* requests 1, 3, 5, ... of a 1000/s schedule: due at 1 ms, 3 ms, ... */
    struct taken t;
    f->l.pace_armed = true; /* the timer is armed: loop_take need not touch the ring */
    bool early = loop_take(&f->l, &t);
    T_CHECK("pace: nothing is taken before it is due", !early && f->l.budget_left == 3 && f->l.in_flight == 0 &&
            f->w.stats.pace.sent == 0, "took %d", early);
    f->l.now = START + 3500000;
    bool a = loop_take(&f->l, &t);
    uint64_t due_a = t.due_ns;
    bool b = loop_take(&f->l, &t);
    bool c = loop_take(&f->l, &t);
    T_CHECK("pace: once due, in schedule order every stride-th, each due when scheduled",
            a && b && !c && due_a == START + 1000000 && t.due_ns == START + 3000000 && f->l.pace_index == 5 &&
                f->l.pace_due == START + 5000000 && f->w.stats.pace.sent == 2 && f->l.budget_left == 1,
            "%d %d %d due %llu %llu index %llu sent %llu", a, b, c, (unsigned long long)due_a,
            (unsigned long long)t.due_ns, (unsigned long long)f->l.pace_index,
            (unsigned long long)f->w.stats.pace.sent);
    loop_ok(&f->l, 200, &(struct req_end){ .due_ns = t.due_ns, .sent_ns = START + 3200000, .first_ns = START + 3300000 });
    T_CHECK("pace: a response records service time and lag", f->w.stats.pace.service.count == 1 &&
            f->w.stats.pace.lag.count == 1 && f->w.stats.ok == 1, "service %llu lag %llu",
            (unsigned long long)f->w.stats.pace.service.count, (unsigned long long)f->w.stats.pace.lag.count);

    loop_idle(&f->l, 2);
    loop_idle(&f->l, 2);
    loop_idle(&f->l, 0);
    T_CHECK("idle: a connection waits for the pace timer once, in order",
            f->l.nwait == 2 && f->l.waiters[f->l.wait_head] == 2 && f->l.waiting[2] && f->l.waiting[0],
            "nwait %u", f->l.nwait);
    CONSERVED("pace: conserved", f);
    fx_free(f);

    f = fx_new(1, false, false);
    fx_pace(f, 1000, 0, 1);
    loop_take(&f->l, &t);
    loop_idle(&f->l, 1);
    T_CHECK("idle: not when no work is left", f->l.nwait == 0 && !f->l.waiting[1], "nwait %u", f->l.nwait);
    fx_free(f);

    f = fx_new(1, false, false);
    loop_idle(&f->l, 1);
    T_CHECK("idle: does nothing without -q", f->l.nwait == 0 && f->l.budget_left == 1, "nwait %u", f->l.nwait);
    fx_free(f);
}

/* ------------------------------------------------------------ random runs */

/* Requests on the wire, as the test sees them: how often each was tried. */
struct model {
    unsigned wire[256];
    size_t nwire;
    uint64_t waiting[MAX_RETRIES + 1];
    uint64_t stranded; /* retried after the run's end: in flight for good */
    uint64_t started;  /* new requests taken (-z: the budget has no count) */
    uint64_t ended;    /* measured or warm-up, ok or error */
};

static unsigned wire_remove(struct model *m, size_t i)
{
    unsigned r = m->wire[i];
    m->wire[i] = m->wire[--m->nwire];
    return r;
}

/* The most-tried waiting retry, or -1. */
static int model_top(const struct model *m)
{
    for (int r = MAX_RETRIES; r >= 0; r--)
        if (m->waiting[r])
            return r;
    return -1;
}

/* What the random runs met, to show they cover every outcome. */
static struct {
    uint64_t stopped, warm_ended, retries_out, charged, stranded;
} seen;

/* One random run of `steps` operations on a fresh loop; returns false at
 * the first broken rule (said with T_QUIET). */
static bool random_run(int run, bool timed, int steps)
{
    uint64_t budget = timed ? 0 : 1 + t_rng_below(60);
    struct fx *f = fx_new(budget, timed, t_rng_below(2));
    struct model m = { .nwire = 0 };
    bool ok = true;
    char name[64];
    snprintf(name, sizeof name, "random %s run %d", timed ? "-z" : "-n", run);
    for (int step = 0; step < steps && ok; step++) {
        f->l.now += 1 + t_rng_below(1000);
        unsigned op = (unsigned)t_rng_below(100);
        struct taken t;
        if (op < 35) { /* a connection takes a request */
            int top = model_top(&m);
            bool can = !f->l.stopping && (top >= 0 || timed || f->l.budget_left > 0) && m.nwire < 256;
            if (!can)
                continue;
            ok &= T_QUIET(name, loop_take(&f->l, &t) && (top < 0 ? t.retries == 0 : t.retries == (unsigned)top),
                          "step %d: take: retries %u, want %d", step, t.retries, top);
            if (top >= 0)
                m.waiting[top]--;
            else
                m.started++;
            m.wire[m.nwire++] = t.retries;
        } else if (op < 55 && m.nwire) {
            wire_remove(&m, t_rng_below(m.nwire));
            loop_ok(&f->l, 200, &(struct req_end){ .due_ns = f->l.now - 10, .sent_ns = f->l.now - 9, .first_ns = f->l.now - 5 });
            m.ended++;
        } else if (op < 65 && m.nwire) {
            wire_remove(&m, t_rng_below(m.nwire));
            loop_error(&f->l, (enum err_kind)t_rng_below(ERR_KINDS), &(struct req_end){ 0 });
            m.ended++;
        } else if (op < 80 && m.nwire) {
            unsigned r = wire_remove(&m, t_rng_below(m.nwire));
            bool counted = t_rng_below(4) != 0;
            if (counted && t_rng_below(3) == 0)
                r = MAX_RETRIES - (unsigned)t_rng_below(2); /* a request near its limit */
            loop_retry(&f->l, r, counted, ERR_REFUSED, &(struct req_end){ 0 });
            if (f->l.stopping)
                m.stranded++;
            else if (counted && r >= MAX_RETRIES)
                m.ended++, seen.retries_out++;
            else
                m.waiting[r + counted]++;
        } else if (op < 88) {
            int top = model_top(&m);
            bool takes = !f->l.stopping && (top >= 0 || timed || f->l.budget_left > 0);
            loop_charge(&f->l, ERR_CONNECT, 0);
            if (takes && top >= 0)
                m.waiting[top]--;
            if (takes && top < 0)
                m.started++;
            m.ended += takes;
            seen.charged += takes;
        } else if (op < 90 && f->l.meter.warming) {
            f->l.meter.warming = false;
        } else if (op == 90 && t_rng_below(8) == 0) {
            f->l.stopping = true;
        }
        uint64_t waiting = 0;
        for (unsigned r = 0; r <= MAX_RETRIES; r++) {
            ok &= T_QUIET(name, f->l.retry_waiting[r] == m.waiting[r], "step %d: %llu waiting with %u tries, want %llu",
                          step, (unsigned long long)f->l.retry_waiting[r], r, (unsigned long long)m.waiting[r]);
            waiting += m.waiting[r];
        }
        ok &= T_QUIET(name, f->l.in_flight == m.nwire + waiting + m.stranded,
                      "step %d: in flight %llu, want %zu on the wire + %llu waiting + %llu stranded", step,
                      (unsigned long long)f->l.in_flight, m.nwire, (unsigned long long)waiting,
                      (unsigned long long)m.stranded);
        ok &= T_QUIET(name, m.started == m.ended + f->l.in_flight, "step %d: started %llu != ended %llu + in flight %llu",
                      step, (unsigned long long)m.started, (unsigned long long)m.ended,
                      (unsigned long long)f->l.in_flight);
        uint64_t warm = f->w.stats.warmup.ok + f->w.stats.warmup.errors;
        ok &= T_QUIET(name, f->w.stats.ok + errors(f) + warm == m.ended, "step %d: ok %llu + errors %llu + warm-up %llu "
                      "!= ended %llu", step, (unsigned long long)f->w.stats.ok, (unsigned long long)errors(f),
                      (unsigned long long)warm, (unsigned long long)m.ended);
        if (!timed)
            ok &= T_QUIET(name, conserved(f), "step %d: budget %llu != left %llu + ok %llu + errors %llu + in flight "
                          "%llu", step, (unsigned long long)budget, (unsigned long long)f->l.budget_left,
                          (unsigned long long)f->w.stats.ok, (unsigned long long)errors(f),
                          (unsigned long long)f->l.in_flight);
        ok &= T_QUIET(name, loop_work_left(&f->l) == (!f->l.stopping && (timed || waiting || f->l.budget_left)),
                      "step %d: work left %d", step, loop_work_left(&f->l));
    }
    /* A -n run that was not stopped drains: every request of the budget
     * ends measured, exactly once. */
    if (!timed && !f->l.stopping && ok) {
        f->l.meter.warming = false;
        struct taken t;
        while (m.nwire) {
            wire_remove(&m, 0);
            loop_ok(&f->l, 200, &(struct req_end){ .due_ns = f->l.now, .sent_ns = f->l.now, .first_ns = f->l.now });
        }
        while (loop_take(&f->l, &t))
            loop_ok(&f->l, 200, &(struct req_end){ .due_ns = f->l.now, .sent_ns = f->l.now, .first_ns = f->l.now });
        ok &= T_QUIET(name, f->w.stats.ok + errors(f) == budget && f->l.in_flight == 0 && f->l.budget_left == 0 &&
                      !loop_work_left(&f->l), "drained: ok %llu + errors %llu, budget %llu, in flight %llu",
                      (unsigned long long)f->w.stats.ok, (unsigned long long)errors(f), (unsigned long long)budget,
                      (unsigned long long)f->l.in_flight);
    }
    seen.stopped += f->l.stopping;
    seen.stranded += m.stranded;
    seen.warm_ended += f->w.stats.warmup.ok + f->w.stats.warmup.errors;
    fx_free(f);
    return ok;
}

static void test_random(void)
{
    bool ok = true;
    for (int run = 0; run < 400; run++)
        ok &= random_run(run, false, 400);
    T_CHECK("random: 400 -n runs of takes, responses, errors, retries, charges, warm-up and stop: every request "
            "ends once, budget = left + ok + errors + in flight at every step, the rest drains to the budget",
            ok, "see above");
    ok = true;
    for (int run = 0; run < 100; run++)
        ok &= random_run(run, true, 400);
    T_CHECK("random: 100 -z runs: every request taken ends once or stays in flight", ok, "see above");
    printf("  random: %llu runs stopped (%llu retries stranded), %llu ended in the warm-up, %llu past MAX_RETRIES, "
           "%llu charged\n", (unsigned long long)seen.stopped, (unsigned long long)seen.stranded,
           (unsigned long long)seen.warm_ended, (unsigned long long)seen.retries_out, (unsigned long long)seen.charged);
}

int main(void)
{
    test_budget();
    test_retries();
    test_charge();
    test_warmup();
    test_stopping();
    test_paced();
    test_random();
    T_DONE();
}
