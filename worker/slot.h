/* worker/slot.h — a connection's place in the ring, the same for both
 * transports (tcp.c, udp.c): its registered file slot, the generation that
 * tells its completions from those of the socket it held before, its one
 * multishot receive and its one send in flight; and the queues of
 * connection indices (to send after the batch, to open). Each transport's
 * connection starts with a struct slot. Private to the worker. */
#ifndef SHB_WORKER_SLOT_H
#define SHB_WORKER_SLOT_H

#include <stdbool.h>
#include <stdint.h>

#include "loop.h"

/* The ops every slot has; a transport numbers its own from OP_SLOT_END. */
enum slot_op { OP_RECV = OP_TRANSPORT, OP_SEND, OP_CANCEL, OP_SLOT_END };

struct slot {
    uint32_t idx;       /* the file slot, and the connection's index */
    uint32_t gen;       /* changes whenever the connection is closed */
    unsigned send_mark; /* uring_sq_mark() after the last send's SQE */
    bool recv_armed;    /* the multishot receive is in the kernel */
    bool sending;       /* a send is in flight (one at a time: the buffer may not move before it completes) */
    bool in_flush;      /* queued in the transport's flush ring */
};

static inline uint64_t slot_ud(const struct slot *s, unsigned op) { return ud_make(op, s->gen, s->idx); }

/* A FIFO of connection indices: room for a power of two of them (mask + 1),
 * so that wrapping is a mask, not a division, on the per-batch path. */
struct idx_ring {
    uint32_t *v;
    uint32_t mask, head, len;
};

/* Room for n indices (at least): 0, or -1 when out of memory. */
int ring_init(struct idx_ring *q, uint32_t n);

static inline void ring_push(struct idx_ring *q, uint32_t i) { q->v[(q->head + q->len++) & q->mask] = i; }

static inline uint32_t ring_pop(struct idx_ring *q)
{
    uint32_t i = q->v[q->head];
    q->head = (q->head + 1) & q->mask;
    q->len--;
    return i;
}

/* Queues the connection to send (or, over UDP, to take its turn) after
 * the batch, once however often it is asked: the requests a batch produced
 * leave together. The flush ring holds every connection. */
static inline void slot_flush_later(struct idx_ring *flush, struct slot *s)
{
    if (!s->in_flush) {
        s->in_flush = true;
        ring_push(flush, s->idx);
    }
}

/* The one multishot receive, drawing from the worker's buffer ring. */
void slot_arm_recv(struct loop *l, struct slot *s);

/* A receive completion: flags' F_MORE says whether the receive stays armed. */
static inline void slot_recv_done(struct slot *s, uint32_t flags)
{
    if (!(flags & IORING_CQE_F_MORE))
        s->recv_armed = false;
}

/* After a send's SQE was prepared: it is the slot's one send in flight. */
static inline void slot_sending(struct loop *l, struct slot *s)
{
    s->sending = true;
    s->send_mark = uring_sq_mark(&l->ring);
}

/* Puts fd (or nothing: -1) in the slot, which closes the socket it held.
 * A send queued for that socket (the goodbye that ended it: a GOAWAY, an
 * alert, a CONNECTION_CLOSE) names the slot, not the socket: it is
 * submitted first, or it would leave from the next socket or not at all.
 * 0, or -errno. */
int slot_set(struct loop *l, struct slot *s, int fd);

/* Closes our side: the receive is cancelled by its user_data (the slot is
 * reused, so cancelling by file would hit the new socket), and the new
 * generation orphans every completion still due. */
void slot_close(struct loop *l, struct slot *s);

/* A completion of an older generation: the buffer a receive took still
 * goes back to the ring. */
void slot_drop_stale(struct loop *l, const struct io_uring_cqe *cqe);

#endif
