/* worker/reqlog.h — --log in a worker: each ended request as a line
 * (report/reqlog_line.h) into the worker's own buffers, each full buffer
 * handed to the ring as one IORING_OP_WRITE to the file main opened
 * (O_APPEND: buffers of different workers land whole, one after another).
 * Memory is taken once at start-up; a line costs no allocation and no
 * syscall. Private to the worker. */
#ifndef SHB_WORKER_REQLOG_H
#define SHB_WORKER_REQLOG_H

#include <stdbool.h>
#include <stdint.h>

#include "report/reqlog_line.h"

/* Four buffers of 256 KiB: about 4,000 lines each, so a worker at a
 * million requests a second hands the kernel some 250 writes a second,
 * and three can be in flight while the fourth fills. */
#define REQLOG_BUFS 4
#define REQLOG_BUF_SIZE (256u << 10)

/* A write still in flight after this long at the end of the run (or while
 * every buffer waits for one) stops the log: it is then incomplete. */
#define REQLOG_WAIT_NS (10ull * 1000000000u)

struct reqlog {
    bool on;                        /* not failed (mem != NULL: --log given) */
    bool failed;                    /* a write failed: nothing more is written */
    int error;                      /* its errno (EIO for a write that made no progress) */
    uint64_t lost;                  /* lines not written since */
    enum reqlog_format format;
    int fd;
    uint32_t cur;                   /* the buffer being filled */
    uint32_t in_flight;             /* buffers handed to the ring */
    uint32_t len[REQLOG_BUFS];      /* bytes in each buffer */
    uint32_t done[REQLOG_BUFS];     /* ... of which written (a short write leaves the rest) */
    uint32_t lines[REQLOG_BUFS];    /* lines in each buffer: what a failed write loses */
    bool busy[REQLOG_BUFS];
    char *mem;                      /* REQLOG_BUFS x REQLOG_BUF_SIZE */
    struct reqlog_cache cache;      /* the start time's seconds, formatted */
};

struct loop;
struct req_end;
struct io_uring_cqe;

/* Before the run: the buffers (cfg.log_fd >= 0). 0, or -1 out of memory. */
int reqlog_init(struct reqlog *g, int fd, enum reqlog_format format);

/* A request ended (called when mem != NULL): as a response (error NULL) or as an error of that
 * kind's name. warmup: it ended during --warmup. */
void reqlog_add(struct loop *l, const struct req_end *e, uint16_t status, const char *error, bool warmup);

/* The completion of a write of buffer `buf` (ud_idx of an OP_LOG). */
void reqlog_complete(struct loop *l, uint32_t buf, int32_t res);

/* The run is over, the ring still there: the last buffer goes, and every
 * write is waited for (at most REQLOG_WAIT_NS): the log is complete when
 * the worker's run returns. */
void reqlog_finish(struct loop *l);

void reqlog_free(struct reqlog *g);

#endif
