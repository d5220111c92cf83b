/* uring/uring.c — raw io_uring syscalls and ring bookkeeping. */
#define _GNU_SOURCE
#include "uring/uring.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int sys_setup(unsigned entries, struct io_uring_params *p)
{
    long ret = syscall(SHB_NR_io_uring_setup, entries, p);
    return ret < 0 ? -errno : (int)ret;
}

static int sys_enter(int fd, unsigned to_submit, unsigned min_complete, unsigned flags, void *arg, size_t argsz)
{
    long ret = syscall(SHB_NR_io_uring_enter, fd, to_submit, min_complete, flags, arg, argsz);
    return ret < 0 ? -errno : (int)ret;
}

static int sys_register(int fd, unsigned op, void *arg, unsigned nr)
{
    long ret = syscall(SHB_NR_io_uring_register, fd, op, arg, nr);
    return ret < 0 ? -errno : (int)ret;
}

/* The tuning flags the spec asks for together (Requirements): SINGLE_ISSUER
 * and DEFER_TASKRUN (6.1) let completions run only when this thread waits;
 * COOP_TASKRUN avoids IPIs; NO_SQARRAY (6.6) drops the SQ index array. */
#define TUNING_FLAGS (IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN | \
                      IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_NO_SQARRAY)

static int map_rings(struct uring *r, const struct io_uring_params *p)
{
    r->sq_map_len = p->sq_off.array + p->sq_entries * sizeof(uint32_t);
    if (p->flags & IORING_SETUP_NO_SQARRAY)
        r->sq_map_len = p->sq_off.ring_entries + sizeof(uint32_t) * 8;
    r->cq_map_len = p->cq_off.cqes + p->cq_entries * sizeof(struct io_uring_cqe);
    if (r->sq_map_len < p->sq_off.flags + sizeof(uint32_t))
        r->sq_map_len = p->sq_off.flags + sizeof(uint32_t);

    if (p->features & IORING_FEAT_SINGLE_MMAP) {
        if (r->cq_map_len > r->sq_map_len)
            r->sq_map_len = r->cq_map_len;
        r->cq_map_len = r->sq_map_len;
    }
    r->sq_map = mmap(NULL, r->sq_map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->ring_fd,
                     IORING_OFF_SQ_RING);
    if (r->sq_map == MAP_FAILED)
        return -errno;
    if (p->features & IORING_FEAT_SINGLE_MMAP) {
        r->cq_map = r->sq_map;
    } else {
        r->cq_map = mmap(NULL, r->cq_map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->ring_fd,
                         IORING_OFF_CQ_RING);
        if (r->cq_map == MAP_FAILED)
            return -errno;
    }
    r->sqe_map_len = p->sq_entries * sizeof(struct io_uring_sqe);
    r->sqe_map = mmap(NULL, r->sqe_map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->ring_fd,
                      IORING_OFF_SQES);
    if (r->sqe_map == MAP_FAILED)
        return -errno;

    uint8_t *sq = r->sq_map, *cq = r->cq_map;
    r->sq_khead = (unsigned *)(sq + p->sq_off.head);
    r->sq_ktail = (unsigned *)(sq + p->sq_off.tail);
    r->sq_mask = *(unsigned *)(sq + p->sq_off.ring_mask);
    r->sq_entries = *(unsigned *)(sq + p->sq_off.ring_entries);
    r->sqes = r->sqe_map;
    r->cq_khead = (unsigned *)(cq + p->cq_off.head);
    r->cq_ktail = (unsigned *)(cq + p->cq_off.tail);
    r->cq_mask = *(unsigned *)(cq + p->cq_off.ring_mask);
    r->cqes = (struct io_uring_cqe *)(cq + p->cq_off.cqes);

    /* Without NO_SQARRAY the kernel reads SQE indices from an array; an
     * identity mapping written once lets us treat both layouts alike. */
    if (!(p->flags & IORING_SETUP_NO_SQARRAY)) {
        unsigned *array = (unsigned *)(sq + p->sq_off.array);
        for (unsigned i = 0; i < r->sq_entries; i++)
            array[i] = i;
    }
    r->sq_tail = r->sq_flushed = *r->sq_ktail;
    return 0;
}

int uring_init(struct uring *r, unsigned sq_entries, unsigned cq_entries, char *err, size_t errlen)
{
    memset(r, 0, sizeof(*r));
    r->ring_fd = -1;
    struct io_uring_params p;
    int fd = -EINVAL;
    for (int attempt = 0; attempt < 2; attempt++) {
        memset(&p, 0, sizeof(p));
        /* CLAMP: a CQ larger than the kernel allows becomes its maximum. */
        p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP | (attempt == 0 ? TUNING_FLAGS : 0);
        p.cq_entries = cq_entries;
        fd = sys_setup(sq_entries, &p);
        if (fd >= 0 || (fd != -EINVAL && fd != -EOPNOTSUPP))
            break;
    }
    if (fd < 0) {
        snprintf(err, errlen, "io_uring_setup failed: %s%s", strerror(-fd),
                 fd == -ENOSYS ? " (io_uring is missing or disabled: kernel.io_uring_disabled?)" :
                 fd == -EPERM ? " (io_uring is disabled for this process: kernel.io_uring_disabled?)" : "");
        return fd;
    }
    r->ring_fd = fd;
    r->enter_fd = fd;
    r->setup_flags = p.flags;
    r->features = p.features;
    r->min_wait = (p.features & IORING_FEAT_MIN_TIMEOUT) != 0;
    if (!(p.features & IORING_FEAT_EXT_ARG)) {
        snprintf(err, errlen, "io_uring lacks IORING_FEAT_EXT_ARG (Linux 5.11): this kernel is too old");
        uring_exit(r);
        return -EOPNOTSUPP;
    }
    int ret = map_rings(r, &p);
    if (ret < 0) {
        snprintf(err, errlen, "mapping the io_uring rings failed: %s", strerror(-ret));
        uring_exit(r);
        return ret;
    }
    /* A registered ring fd saves an fdget per io_uring_enter (5.18). */
    struct io_uring_rsrc_update up = { .offset = UINT32_MAX, .data = (uint64_t)fd };
    if (sys_register(fd, IORING_REGISTER_RING_FDS, &up, 1) == 1) {
        r->enter_fd = (int)up.offset;
        r->enter_flags = IORING_ENTER_REGISTERED_RING;
    }
    return 0;
}

void uring_exit(struct uring *r)
{
    if (r->sqe_map && r->sqe_map != MAP_FAILED)
        munmap(r->sqe_map, r->sqe_map_len);
    if (r->cq_map && r->cq_map != MAP_FAILED && r->cq_map != r->sq_map)
        munmap(r->cq_map, r->cq_map_len);
    if (r->sq_map && r->sq_map != MAP_FAILED)
        munmap(r->sq_map, r->sq_map_len);
    if (r->ring_fd >= 0)
        close(r->ring_fd);
    memset(r, 0, sizeof(*r));
    r->ring_fd = -1;
}

static void flush_sq(struct uring *r)
{
    /* Release pairs with the kernel's acquire of the SQ tail: the SQE bodies
     * we wrote are visible before the tail that publishes them. */
    if (r->sq_tail != r->sq_flushed) {
        __atomic_store_n(r->sq_ktail, r->sq_tail, __ATOMIC_RELEASE);
        r->sq_flushed = r->sq_tail;
    }
}

int uring_submit_wait(struct uring *r, unsigned wait_nr, unsigned min_wait_usec)
{
    flush_sq(r);
    /* Without SQPOLL the kernel consumes every published SQE during enter,
     * so what is pending is our tail minus its head. */
    unsigned pending = r->sq_tail - __atomic_load_n(r->sq_khead, __ATOMIC_ACQUIRE);
    unsigned flags = r->enter_flags;
    if (wait_nr == 0)
        return pending ? sys_enter(r->enter_fd, pending, 0, flags, NULL, 0) : 0;
    struct io_uring_getevents_arg arg = { 0 };
    /* min_wait_usec without a timeout is a timeout: when it passes with no
     * completion at all, the kernel returns -ETIME empty-handed
     * (io_cqring_min_timer_wakeup: "no general timeout ... we are done").
     * A worker with idle stretches then woke every 50 us for nothing, and
     * on a machine the server shares that stole its CPU: -t 2 served 30 %
     * fewer requests than -t 1 over h2c, with half its wake-ups empty. With
     * a general timeout longer than min_wait, the kernel instead falls back
     * to waiting for the first completion once min_wait has passed. */
    static const struct shb_kernel_timespec long_wait = { .tv_sec = 1, .tv_nsec = 0 };
    if (r->min_wait && wait_nr > 1) {
        arg.min_wait_usec = min_wait_usec;
        arg.ts = (uint64_t)(uintptr_t)&long_wait;
    } else if (wait_nr > 1)
        wait_nr = 1; /* no min_wait: holding out for a batch could stall the pipeline */
    flags |= IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG;
    return sys_enter(r->enter_fd, pending, wait_nr, flags, &arg, sizeof(arg));
}

int uring_wait_cq(struct uring *r, unsigned n, uint64_t timeout_ns)
{
    flush_sq(r);
    unsigned pending = r->sq_tail - __atomic_load_n(r->sq_khead, __ATOMIC_ACQUIRE);
    struct shb_kernel_timespec ts = { .tv_sec = (int64_t)(timeout_ns / 1000000000u),
                                      .tv_nsec = (long long)(timeout_ns % 1000000000u) };
    struct io_uring_getevents_arg arg = { .ts = (uint64_t)(uintptr_t)&ts };
    return sys_enter(r->enter_fd, pending, n, r->enter_flags | IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &arg,
                     sizeof(arg));
}

void uring_sq_reserve(struct uring *r, unsigned n)
{
    while (r->sq_tail - __atomic_load_n(r->sq_khead, __ATOMIC_ACQUIRE) + n > r->sq_entries) {
        int ret = uring_submit_wait(r, 0, 0);
        if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY) {
            fprintf(stderr, "shb: io_uring_enter: %s\n", strerror(-ret));
            abort();
        }
    }
}

struct io_uring_sqe *uring_sqe(struct uring *r)
{
    uring_sq_reserve(r, 1);
    struct io_uring_sqe *s = &r->sqes[r->sq_tail & r->sq_mask];
    r->sq_tail++;
    memset(s, 0, sizeof(*s));
    return s;
}

int uring_files_register(struct uring *r, unsigned n)
{
    int32_t *fds = malloc(n * sizeof(*fds));
    if (!fds)
        return -ENOMEM;
    for (unsigned i = 0; i < n; i++)
        fds[i] = -1; /* sparse slot */
    int ret = sys_register(r->ring_fd, IORING_REGISTER_FILES, fds, n);
    free(fds);
    return ret < 0 ? ret : 0;
}

int uring_files_set(struct uring *r, unsigned slot, int fd)
{
    int32_t v = fd;
    struct io_uring_files_update up = { .offset = slot, .fds = (uint64_t)(uintptr_t)&v };
    int ret = sys_register(r->ring_fd, IORING_REGISTER_FILES_UPDATE, &up, 1);
    return ret < 0 ? ret : 0;
}

int uring_bufring_init(struct uring *r, struct uring_bufring *b, uint16_t bgid, unsigned count, unsigned size)
{
    memset(b, 0, sizeof(*b));
    size_t ring_len = (size_t)count * sizeof(struct io_uring_buf);
    void *ring = mmap(NULL, ring_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (ring == MAP_FAILED)
        return -errno;
    b->mem = malloc((size_t)count * size);
    if (!b->mem) {
        munmap(ring, ring_len);
        return -ENOMEM;
    }
    b->ring = ring;
    b->count = count;
    b->mask = count - 1;
    b->size = size;
    b->bgid = bgid;
    struct io_uring_buf_reg reg = { .ring_addr = (uint64_t)(uintptr_t)ring, .ring_entries = count, .bgid = bgid };
    int ret = sys_register(r->ring_fd, IORING_REGISTER_PBUF_RING, &reg, 1);
    if (ret < 0) {
        uring_bufring_free(b);
        return ret;
    }
    for (unsigned i = 0; i < count; i++)
        uring_bufring_recycle(b, i);
    uring_bufring_publish(b);
    return 0;
}

void uring_bufring_free(struct uring_bufring *b)
{
    if (b->ring)
        munmap(b->ring, (size_t)b->count * sizeof(struct io_uring_buf));
    free(b->mem);
    memset(b, 0, sizeof(*b));
}

void uring_bufring_recycle(struct uring_bufring *b, unsigned bid)
{
    struct io_uring_buf *slot = (struct io_uring_buf *)b->ring + (b->tail & b->mask);
    slot->addr = (uint64_t)(uintptr_t)uring_bufring_addr(b, bid);
    slot->len = b->size;
    slot->bid = (uint16_t)bid;
    b->tail++;
}

void uring_bufring_publish(struct uring_bufring *b)
{
    /* Release pairs with the kernel's acquire of the buffer ring tail: the
     * entries above are written before they become visible. */
    __atomic_store_n((uint16_t *)(b->ring + IO_URING_BUF_RING_TAIL_OFFSET), b->tail, __ATOMIC_RELEASE);
}

void uring_prep_connect(struct io_uring_sqe *s, unsigned slot, const struct sockaddr *a, socklen_t len, uint64_t ud)
{
    s->opcode = IORING_OP_CONNECT;
    s->flags = IOSQE_FIXED_FILE;
    s->fd = (int32_t)slot;
    s->addr = (uint64_t)(uintptr_t)a;
    s->off = len;
    s->user_data = ud;
}

void uring_prep_link_timeout(struct io_uring_sqe *s, const struct shb_kernel_timespec *ts, uint64_t ud)
{
    s->opcode = IORING_OP_LINK_TIMEOUT;
    s->fd = -1;
    s->addr = (uint64_t)(uintptr_t)ts;
    s->len = 1;
    s->user_data = ud;
}

void uring_prep_recv_multishot(struct io_uring_sqe *s, unsigned slot, uint16_t bgid, uint64_t ud)
{
    s->opcode = IORING_OP_RECV;
    s->flags = IOSQE_FIXED_FILE | IOSQE_BUFFER_SELECT;
    s->ioprio = IORING_RECV_MULTISHOT;
    s->fd = (int32_t)slot;
    s->buf_group = bgid;
    s->user_data = ud;
}

void uring_prep_send(struct io_uring_sqe *s, unsigned slot, const void *buf, size_t len, uint64_t ud)
{
    s->opcode = IORING_OP_SEND;
    s->flags = IOSQE_FIXED_FILE;
    s->fd = (int32_t)slot;
    s->addr = (uint64_t)(uintptr_t)buf;
    s->len = (uint32_t)len;
    s->msg_flags = MSG_NOSIGNAL;
    s->user_data = ud;
}

void uring_prep_write(struct io_uring_sqe *s, int fd, const void *buf, size_t len, uint64_t off, uint64_t ud)
{
    s->opcode = IORING_OP_WRITE;
    s->fd = fd;
    s->addr = (uint64_t)(uintptr_t)buf;
    s->len = (uint32_t)len;
    s->off = off;
    s->user_data = ud;
}

void uring_prep_sendmsg(struct io_uring_sqe *s, unsigned slot, const struct msghdr *msg, uint64_t ud)
{
    s->opcode = IORING_OP_SENDMSG;
    s->flags = IOSQE_FIXED_FILE;
    s->fd = (int32_t)slot;
    s->addr = (uint64_t)(uintptr_t)msg;
    s->len = 1;
    s->msg_flags = MSG_NOSIGNAL;
    s->user_data = ud;
}

void uring_prep_timeout(struct io_uring_sqe *s, const struct shb_kernel_timespec *ts, bool absolute, uint64_t ud)
{
    s->opcode = IORING_OP_TIMEOUT;
    s->fd = -1;
    s->addr = (uint64_t)(uintptr_t)ts;
    s->len = 1;
    s->timeout_flags = absolute ? IORING_TIMEOUT_ABS : 0;
    s->user_data = ud;
}

void uring_prep_cancel(struct io_uring_sqe *s, uint64_t target_ud, uint64_t ud)
{
    s->opcode = IORING_OP_ASYNC_CANCEL;
    s->fd = -1;
    s->addr = target_ud;
    s->user_data = ud;
}
