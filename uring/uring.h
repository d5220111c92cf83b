/* uring/uring.h — raw io_uring: ring setup with feature fallback, SQE helpers,
 * registered files, a provided buffer ring. No liburing.
 *
 * One ring per worker thread, only ever touched by that thread (which is what
 * lets us ask for SINGLE_ISSUER and DEFER_TASKRUN). */
#ifndef SHB_URING_H
#define SHB_URING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "uring/abi.h"

struct uring {
    int ring_fd;
    int enter_fd;            /* registered ring index, or ring_fd */
    unsigned enter_flags;    /* IORING_ENTER_REGISTERED_RING when registered */
    unsigned setup_flags;    /* what the kernel accepted */
    unsigned features;
    bool min_wait;           /* IORING_FEAT_MIN_TIMEOUT: min_wait_usec honoured (6.12) */

    unsigned *sq_khead, *sq_ktail, sq_mask, sq_entries;
    struct io_uring_sqe *sqes;
    unsigned sq_tail;        /* our tail: SQEs handed out */
    unsigned sq_flushed;     /* what *sq_ktail was last set to */

    unsigned *cq_khead, *cq_ktail, cq_mask;
    struct io_uring_cqe *cqes;

    void *sq_map, *cq_map, *sqe_map;
    size_t sq_map_len, cq_map_len, sqe_map_len;
};

/* Creates a ring. Asks for SINGLE_ISSUER | COOP_TASKRUN | DEFER_TASKRUN |
 * NO_SQARRAY together and, if the kernel refuses, for none of them. Registers
 * the ring fd where possible. Returns 0 or -errno; err names the step. */
int uring_init(struct uring *r, unsigned sq_entries, unsigned cq_entries, char *err, size_t errlen);
void uring_exit(struct uring *r);

/* Next free SQE, zeroed. Submits what is queued first if the SQ is full. */
struct io_uring_sqe *uring_sqe(struct uring *r);

/* A mark for the SQEs handed out so far, and whether the kernel has taken
 * every SQE up to a mark (it does so in order). */
static inline unsigned uring_sq_mark(const struct uring *r) { return r->sq_tail; }
static inline bool uring_sq_submitted(const struct uring *r, unsigned mark)
{
    return (int)(__atomic_load_n(r->sq_khead, __ATOMIC_ACQUIRE) - mark) >= 0;
}

/* Makes sure the next n uring_sqe() calls need no early submit: SQEs linked
 * with IOSQE_IO_LINK must reach the kernel in one submission, or the chain
 * is cut where the submission ends. */
void uring_sq_reserve(struct uring *r, unsigned n);

/* Submits queued SQEs and waits for wait_nr completions (0: don't wait).
 * With min_wait_usec and a kernel that supports it, the kernel holds out that
 * long for wait_nr and then returns as soon as anything completes. Returns the
 * number submitted or -errno (-EINTR/-ETIME/-EAGAIN/-EBUSY are benign). */
int uring_submit_wait(struct uring *r, unsigned wait_nr, unsigned min_wait_usec);

/* Submits queued SQEs and waits until the CQ holds n completions, those
 * not consumed yet (uring_cq_advance) included, or timeout_ns passes: a
 * caller in the middle of a batch waits for one more completion with n =
 * tail - head + 1. Returns as uring_submit_wait. */
int uring_wait_cq(struct uring *r, unsigned n, uint64_t timeout_ns);

/* Completion queue walk: for (h = uring_cq_head(r); h != uring_cq_tail(r); h++) { cqe = uring_cq_at(r, h); } uring_cq_advance(r, h); */
static inline unsigned uring_cq_head(const struct uring *r) { return *r->cq_khead; }
static inline unsigned uring_cq_tail(const struct uring *r)
{
    /* Acquire pairs with the kernel's release store of the CQ tail: the CQE
     * contents are visible once the tail that covers them is. */
    return __atomic_load_n(r->cq_ktail, __ATOMIC_ACQUIRE);
}
static inline struct io_uring_cqe *uring_cq_at(const struct uring *r, unsigned h) { return &r->cqes[h & r->cq_mask]; }
static inline void uring_cq_advance(struct uring *r, unsigned h)
{
    /* Release: our reads of the CQEs are done before the kernel may reuse them. */
    __atomic_store_n(r->cq_khead, h, __ATOMIC_RELEASE);
}

/* Registered files: a sparse table of n slots, then slot updates. */
int uring_files_register(struct uring *r, unsigned n);
int uring_files_set(struct uring *r, unsigned slot, int fd);

/* Provided buffer ring (5.19): `count` buffers of `size` bytes, group bgid. */
struct uring_bufring {
    uint8_t *ring;      /* struct io_uring_buf[count], page-aligned, shared with the kernel */
    uint8_t *mem;       /* count * size bytes */
    unsigned count, mask, size;
    uint16_t bgid;
    uint16_t tail;      /* our tail, published with uring_bufring_publish */
};
int uring_bufring_init(struct uring *r, struct uring_bufring *b, uint16_t bgid, unsigned count, unsigned size);
void uring_bufring_free(struct uring_bufring *b);
static inline uint8_t *uring_bufring_addr(const struct uring_bufring *b, unsigned bid) { return b->mem + (size_t)bid * b->size; }
void uring_bufring_recycle(struct uring_bufring *b, unsigned bid);
void uring_bufring_publish(struct uring_bufring *b);

/* SQE preparation. */
void uring_prep_connect(struct io_uring_sqe *s, unsigned slot, const struct sockaddr *a, socklen_t len, uint64_t ud);
void uring_prep_link_timeout(struct io_uring_sqe *s, const struct shb_kernel_timespec *ts, uint64_t ud);
void uring_prep_recv_multishot(struct io_uring_sqe *s, unsigned slot, uint16_t bgid, uint64_t ud);
void uring_prep_send(struct io_uring_sqe *s, unsigned slot, const void *buf, size_t len, uint64_t ud);
/* msg (and what it points to) must stay put until the completion. */
void uring_prep_sendmsg(struct io_uring_sqe *s, unsigned slot, const struct msghdr *msg, uint64_t ud);
void uring_prep_timeout(struct io_uring_sqe *s, const struct shb_kernel_timespec *ts, bool absolute, uint64_t ud);
/* write(2) of an ordinary descriptor (not a registered slot); off -1:
 * at the file's position (with O_APPEND, its end). */
void uring_prep_write(struct io_uring_sqe *s, int fd, const void *buf, size_t len, uint64_t off, uint64_t ud);
void uring_prep_cancel(struct io_uring_sqe *s, uint64_t target_ud, uint64_t ud);

#endif
