/* uring/abi.h — the io_uring kernel ABI, as much of it as shb uses.
 *
 * Our own copy because musl-gcc sees no kernel headers and the system's
 * <linux/io_uring.h> here is from 6.1: it lacks IORING_SETUP_NO_SQARRAY (6.6)
 * and min_wait_usec / IORING_FEAT_MIN_TIMEOUT (6.12). Values and layouts are
 * the kernel's include/uapi/linux/io_uring.h; they are ABI and never change. */
#ifndef SHB_URING_ABI_H
#define SHB_URING_ABI_H

#include <stdint.h>

#define SHB_NR_io_uring_setup 425
#define SHB_NR_io_uring_enter 426
#define SHB_NR_io_uring_register 427

struct io_uring_sqe {
    uint8_t opcode;
    uint8_t flags;     /* IOSQE_* */
    uint16_t ioprio;   /* for RECV: IORING_RECV_MULTISHOT */
    int32_t fd;
    union {
        uint64_t off;
        uint64_t addr2;
    };
    union {
        uint64_t addr;
    };
    uint32_t len;
    union {
        uint32_t rw_flags;
        uint32_t msg_flags;
        uint32_t timeout_flags;
        uint32_t cancel_flags;
    };
    uint64_t user_data;
    union {
        uint16_t buf_index;
        uint16_t buf_group;
    } __attribute__((packed));
    uint16_t personality;
    union {
        int32_t splice_fd_in;
        uint32_t file_index;
    };
    uint64_t addr3;
    uint64_t pad2[1];
};
_Static_assert(sizeof(struct io_uring_sqe) == 64, "sqe is 64 bytes");

/* sqe->flags */
#define IOSQE_FIXED_FILE (1u << 0)
#define IOSQE_IO_LINK (1u << 2)
#define IOSQE_IO_HARDLINK (1u << 3)
#define IOSQE_BUFFER_SELECT (1u << 5)
#define IOSQE_CQE_SKIP_SUCCESS (1u << 6)

enum {
    IORING_OP_NOP = 0,
    IORING_OP_SENDMSG = 9,
    IORING_OP_TIMEOUT = 11,
    IORING_OP_ASYNC_CANCEL = 14,
    IORING_OP_LINK_TIMEOUT = 15,
    IORING_OP_CONNECT = 16,
    IORING_OP_CLOSE = 19,
    IORING_OP_WRITE = 23,
    IORING_OP_SEND = 26,
    IORING_OP_RECV = 27,
    IORING_OP_SHUTDOWN = 34,
    IORING_OP_SOCKET = 45,
};

/* sqe->ioprio for SEND/RECV */
#define IORING_RECV_MULTISHOT (1u << 1)
/* sqe->timeout_flags */
#define IORING_TIMEOUT_ABS (1u << 0)
/* sqe->cancel_flags */
#define IORING_ASYNC_CANCEL_ALL (1u << 0)

struct io_uring_cqe {
    uint64_t user_data;
    int32_t res;
    uint32_t flags;
};

#define IORING_CQE_F_BUFFER (1u << 0)
#define IORING_CQE_F_MORE (1u << 1)
#define IORING_CQE_BUFFER_SHIFT 16

struct io_sqring_offsets {
    uint32_t head, tail, ring_mask, ring_entries, flags, dropped, array, resv1;
    uint64_t user_addr;
};
struct io_cqring_offsets {
    uint32_t head, tail, ring_mask, ring_entries, overflow, cqes, flags, resv1;
    uint64_t user_addr;
};
struct io_uring_params {
    uint32_t sq_entries, cq_entries, flags, sq_thread_cpu, sq_thread_idle, features, wq_fd;
    uint32_t resv[3];
    struct io_sqring_offsets sq_off;
    struct io_cqring_offsets cq_off;
};

/* io_uring_params.flags */
#define IORING_SETUP_CQSIZE (1u << 3)
#define IORING_SETUP_CLAMP (1u << 4)
#define IORING_SETUP_COOP_TASKRUN (1u << 8)
#define IORING_SETUP_SINGLE_ISSUER (1u << 12)
#define IORING_SETUP_DEFER_TASKRUN (1u << 13)
#define IORING_SETUP_NO_SQARRAY (1u << 16)

/* io_uring_params.features */
#define IORING_FEAT_SINGLE_MMAP (1u << 0)
#define IORING_FEAT_NODROP (1u << 1)
#define IORING_FEAT_EXT_ARG (1u << 8)
#define IORING_FEAT_MIN_TIMEOUT (1u << 15)

#define IORING_OFF_SQ_RING 0ULL
#define IORING_OFF_CQ_RING 0x8000000ULL
#define IORING_OFF_SQES 0x10000000ULL

/* io_uring_enter flags */
#define IORING_ENTER_GETEVENTS (1u << 0)
#define IORING_ENTER_EXT_ARG (1u << 3)
#define IORING_ENTER_REGISTERED_RING (1u << 4)

struct shb_kernel_timespec {
    int64_t tv_sec;
    long long tv_nsec;
};

struct io_uring_getevents_arg {
    uint64_t sigmask;
    uint32_t sigmask_sz;
    uint32_t min_wait_usec; /* 6.12; "pad" before, must be 0 there */
    uint64_t ts;
};

/* io_uring_register opcodes */
enum {
    IORING_REGISTER_FILES = 2,
    IORING_REGISTER_FILES_UPDATE = 6,
    IORING_REGISTER_PROBE = 8,
    IORING_REGISTER_RING_FDS = 20,
    IORING_REGISTER_PBUF_RING = 22,
};

struct io_uring_files_update {
    uint32_t offset;
    uint32_t resv;
    uint64_t fds; /* pointer to int32_t[] */
};

struct io_uring_rsrc_update {
    uint32_t offset;
    uint32_t resv;
    uint64_t data;
};

struct io_uring_buf {
    uint64_t addr;
    uint32_t len;
    uint16_t bid;
    uint16_t resv;
};

/* The ring's tail lives where bufs[0].resv would be (the kernel's union). */
#define IO_URING_BUF_RING_TAIL_OFFSET 14

struct io_uring_buf_reg {
    uint64_t ring_addr;
    uint32_t ring_entries;
    uint16_t bgid;
    uint16_t flags;
    uint64_t resv[3];
};

#endif
