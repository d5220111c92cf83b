/* cli/reqlist_file.c — reading a request list from its file (--targets
 * FILE, or - for stdin) and the body files it names, once at start-up.
 * The text itself is reqlist.c's (sans-I/O, fuzzed). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/reqlist.h"

/* All of fd, at most max bytes, malloc'd; with strip_crlf without its CR
 * and LF bytes (-d @file, as curl). 0, or -1 with errno set (EFBIG: larger
 * than max). */
int cli_read_fd(int fd, size_t max, bool strip_crlf, uint8_t **out, size_t *out_len)
{
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return -1;
    for (;;) {
        if (cap - len < 4096) {
            if (cap >= max) {
                free(buf);
                errno = EFBIG;
                return -1;
            }
            uint8_t *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                errno = ENOMEM;
                return -1;
            }
            buf = grown;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int saved = errno;
            free(buf);
            errno = saved;
            return -1;
        }
        if (n == 0)
            break;
        if (!strip_crlf) {
            len += (size_t)n;
            continue;
        }
        /* Compact the new bytes in place; the write index never passes the read one. */
        const uint8_t *src = buf + len, *end = src + n;
        for (; src < end; src++)
            if (*src != '\r' && *src != '\n')
                buf[len++] = *src;
    }
    *out = buf;
    *out_len = len;
    return 0;
}

static int read_all(int fd, uint8_t **out, size_t *out_len)
{
    return cli_read_fd(fd, REQLIST_FILE_MAX, false, out, out_len);
}

static const char *why(int e)
{
    return e == EFBIG ? "larger than 1 GiB" : strerror(e);
}

/* A body file: relative to the targets file's directory (the file and its
 * bodies move together), absolute as written; with - (stdin), relative to
 * the working directory. Sent byte for byte. */
static int load_body(struct reqlist_entry *e, const char *dir, size_t dirlen, char *err, size_t errlen)
{
    char *path = NULL;
    if (e->body_path[0] == '/' || dirlen == 0)
        path = strdup(e->body_path);
    else if (asprintf(&path, "%.*s/%s", (int)dirlen, dir, e->body_path) < 0)
        path = NULL;
    if (!path) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read_all(fd, &e->body, &e->body_len) < 0) {
        int saved = errno;
        snprintf(err, errlen, "--targets: line %u: cannot read the body file '%s': %s", e->line, path, why(saved));
        if (fd >= 0)
            close(fd);
        free(path);
        return -1;
    }
    close(fd);
    free(path);
    e->has_body = true;
    return 0;
}

int reqlist_load(const char *file, struct reqlist *l, char *err, size_t errlen)
{
    bool from_stdin = strcmp(file, "-") == 0;
    int fd = from_stdin ? STDIN_FILENO : open(file, O_RDONLY | O_CLOEXEC);
    uint8_t *text = NULL;
    size_t len = 0;
    if (fd < 0 || read_all(fd, &text, &len) < 0) {
        int saved = errno;
        snprintf(err, errlen, "--targets: cannot read '%s': %s", from_stdin ? "stdin" : file, why(saved));
        if (fd >= 0 && !from_stdin)
            close(fd);
        return -1;
    }
    if (!from_stdin)
        close(fd);
    int rc = reqlist_parse((const char *)text, len, l, err, errlen);
    free(text);
    if (rc < 0)
        return -1;
    const char *slash = from_stdin ? NULL : strrchr(file, '/');
    size_t dirlen = slash ? (size_t)(slash - file) + (slash == file) : 0; /* "/x": "/" */
    for (size_t i = 0; i < l->n; i++) {
        if (l->e[i].body_path && load_body(&l->e[i], file, dirlen, err, errlen) < 0) {
            reqlist_free(l);
            return -1;
        }
    }
    return 0;
}
