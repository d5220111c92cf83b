/* worker/slot.c — the connection slot layer both transports share
 * (slot.h). */
#include "slot.h"

#include <stdlib.h>

int ring_init(struct idx_ring *q, uint32_t n)
{
    uint32_t cap = pow2_at_least(n);
    *q = (struct idx_ring){ .v = calloc(cap, sizeof(uint32_t)), .mask = cap - 1 };
    return q->v ? 0 : -1;
}

void slot_arm_recv(struct loop *l, struct slot *s)
{
    uring_prep_recv_multishot(uring_sqe(&l->ring), s->idx, LOOP_BUF_GROUP, slot_ud(s, OP_RECV));
    s->recv_armed = true;
}

int slot_set(struct loop *l, struct slot *s, int fd)
{
    if (!uring_sq_submitted(&l->ring, s->send_mark))
        uring_submit_wait(&l->ring, 0, 0);
    return uring_files_set(&l->ring, s->idx, fd);
}

void slot_close(struct loop *l, struct slot *s)
{
    if (s->recv_armed) {
        struct io_uring_sqe *sqe = uring_sqe(&l->ring);
        uring_prep_cancel(sqe, slot_ud(s, OP_RECV), slot_ud(s, OP_CANCEL));
        sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
        s->recv_armed = false;
    }
    s->gen = (s->gen + 1) & GEN_MASK;
}

void slot_drop_stale(struct loop *l, const struct io_uring_cqe *cqe)
{
    if (ud_op(cqe->user_data) == OP_RECV && (cqe->flags & IORING_CQE_F_BUFFER))
        uring_bufring_recycle(&l->bufs, cqe->flags >> IORING_CQE_BUFFER_SHIFT);
}
