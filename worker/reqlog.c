/* worker/reqlog.c — --log in a worker (reqlog.h).
 *
 * Buffers go round: lines fill buffer `cur`; when it has less than a line's
 * room left it is handed to the ring and the next one is filled. A buffer
 * still in flight when its turn comes again (the disk is slower than the
 * requests) is waited for: the wait walks the completions the kernel has
 * posted, the loop's unconsumed batch included, handles the log's own and
 * marks them OP_LOG_SEEN so that the loop passes over them (every other
 * completion stays where it is, for the loop). A write fails (disk full,
 * EFBIG, EIO) or never completes: logging stops, the worker's lines from
 * then on are counted as lost, main says so on stderr and the run goes on. */
#include "reqlog.h"

#include <errno.h>
#include <stdlib.h>

#include "loop.h"

int reqlog_init(struct reqlog *g, int fd, enum reqlog_format format)
{
    *g = (struct reqlog){ .fd = fd, .format = format };
    g->mem = malloc((size_t)REQLOG_BUFS * REQLOG_BUF_SIZE);
    if (!g->mem)
        return -1;
    g->on = true;
    return 0;
}

void reqlog_free(struct reqlog *g)
{
    free(g->mem);
    g->mem = NULL;
}

static void fail(struct reqlog *g, int err)
{
    if (g->failed)
        return;
    g->failed = true;
    g->on = false;
    g->error = err;
    /* What was formatted and will never be written. */
    for (unsigned b = 0; b < REQLOG_BUFS; b++)
        g->lost += g->lines[b];
}

/* Buffer b's unwritten part to the ring. */
static void submit(struct loop *l, uint32_t b)
{
    struct reqlog *g = &l->log;
    g->busy[b] = true;
    g->in_flight++;
    uring_prep_write(uring_sqe(&l->ring), g->fd, g->mem + (size_t)b * REQLOG_BUF_SIZE + g->done[b],
                     g->len[b] - g->done[b], (uint64_t)-1, ud_make(OP_LOG, 0, b));
}

void reqlog_complete(struct loop *l, uint32_t b, int32_t res)
{
    struct reqlog *g = &l->log;
    if (b >= REQLOG_BUFS || !g->busy[b])
        return;
    g->busy[b] = false;
    g->in_flight--;
    if (g->failed)
        return;
    if (res <= 0) {
        fail(g, res < 0 ? -res : EIO);
        return;
    }
    g->done[b] += (uint32_t)res;
    if (g->done[b] < g->len[b]) {
        submit(l, b); /* a short write: the rest goes now */
        return;
    }
    g->len[b] = g->done[b] = g->lines[b] = 0;
}

/* Handles every log completion the kernel has posted; true if it found one. */
static bool reap(struct loop *l)
{
    struct uring *r = &l->ring;
    bool found = false;
    for (unsigned h = uring_cq_head(r), t = uring_cq_tail(r); h != t; h++) {
        struct io_uring_cqe *cqe = uring_cq_at(r, h);
        if (ud_op(cqe->user_data) != OP_LOG)
            continue;
        uint32_t b = ud_idx(cqe->user_data);
        cqe->user_data = ud_make(OP_LOG_SEEN, 0, 0); /* the loop's walk passes over it */
        reqlog_complete(l, b, cqe->res);
        found = true;
    }
    return found;
}

/* Waits until buffer b is free (or the log failed): bounded by
 * REQLOG_WAIT_NS, after which the log is given up. */
static void wait_for(struct loop *l, uint32_t b)
{
    struct reqlog *g = &l->log;
    uint64_t waited = 0;
    while (g->on && (b < REQLOG_BUFS ? g->busy[b] : g->in_flight > 0)) {
        if (reap(l))
            continue;
        if (waited >= REQLOG_WAIT_NS) {
            fail(g, ETIMEDOUT);
            return;
        }
        struct uring *r = &l->ring;
        /* One completion more than the CQ holds now: the loop's batch is
         * not consumed yet and counts. */
        int ret = uring_wait_cq(r, uring_cq_tail(r) - uring_cq_head(r) + 1, 100000000u);
        if (ret == -ETIME)
            waited += 100000000u;
        else if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY) {
            fail(g, -ret);
            return;
        }
    }
}

void reqlog_add(struct loop *l, const struct req_end *e, uint16_t status, const char *error, bool warmup)
{
    struct reqlog *g = &l->log;
    const struct worker_config *cfg = l->cfg;
    uint32_t b = g->cur;
    if (!g->on) {
        g->lost++;
        return;
    }
    struct reqlog_line ln = {
        .start_ns = cfg->log_wall_start_ns + (e->due_ns - l->start_ns),
        .latency_ns = l->now - e->due_ns,
        .ttfb_ns = e->first_ns >= e->sent_ns && e->first_ns ? e->first_ns - e->sent_ns : 0,
        .bytes = e->bytes,
        .stream = e->stream,
        .conn = cfg->conn_first + e->conn,
        .target = e->target,
        .thread = cfg->thread,
        .status = status,
        .error = error,
        .warmup = warmup,
    };
    g->len[b] += (uint32_t)reqlog_format_line(g->mem + (size_t)b * REQLOG_BUF_SIZE + g->len[b], &ln, g->format, &g->cache);
    g->lines[b]++;
    if (REQLOG_BUF_SIZE - g->len[b] >= REQLOG_LINE_MAX)
        return;
    submit(l, b);
    g->cur = b = (b + 1) % REQLOG_BUFS;
    if (g->busy[b])
        wait_for(l, b);
}

void reqlog_finish(struct loop *l)
{
    struct reqlog *g = &l->log;
    if (g->on && g->len[g->cur] > 0)
        submit(l, g->cur);
    wait_for(l, REQLOG_BUFS); /* all of them */
}
