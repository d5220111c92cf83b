/* test/fuzz/fuzz_merge.c — what `shb merge` reads from files users hand it:
 * the JSON reader (json.c), HdrHistogram's encoding (hdr.c) and the merge
 * itself (merge.c), on any bytes.
 *
 * Input: [mode byte], then the bytes. Mode bit 0 clear: the bytes are one
 * file for `shb merge -j --histograms` (JSON reports: the seeds are real ones); set: they
 * are an encoded histogram for hdr_decode_add. What must hold:
 *   - nothing crashes, reads out of bounds or leaks (ASan, UBSan);
 *   - merge exits 0 or 2 (bad input), never anything else, and on 2 says
 *     why in one line;
 *   - a report merge made merges again into the same report, line for
 *     line but for the means (the sum behind a mean is carried as the mean,
 *     which can move in its last digit): merge(merge(merge(x))) ==
 *     merge(merge(x)) (the first merge may normalise the text);
 *   - a histogram that decodes encodes into bytes that decode to the same
 *     counts (hdr_encode, then hdr_decode_add), and a refused one leaves the
 *     histogram as it was. */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "report/hdr.h"
#include "report/merge.h"
#include "stats/stats.h"

/* The input as a file merge can open: a memfd, by its /proc path. */
static int as_file(const uint8_t *p, size_t n, char *path, size_t cap)
{
    int fd = memfd_create("fuzz_merge", 0);
    FZ_CHECK(fd >= 0, "memfd_create");
    FZ_CHECK(write(fd, p, n) == (ssize_t)n, "write");
    snprintf(path, cap, "/proc/self/fd/%d", fd);
    return fd;
}

/* merge -j over bytes: its exit status, its stdout in *out (malloc'd). */
static int merge_bytes(const uint8_t *p, size_t n, char **out, size_t *out_len)
{
    char path[64];
    int fd = as_file(p, n, path, sizeof path);
    char *errbuf = NULL;
    size_t errlen = 0;
    FILE *o = open_memstream(out, out_len), *e = open_memstream(&errbuf, &errlen);
    char *argv[] = { "merge", "-j", "--histograms", path, NULL }; /* what is merged again must keep them */
    int rc = merge_main(4, argv, o, e);
    fclose(o);
    fclose(e);
    close(fd);
    FZ_CHECK(rc == 0 || rc == 2, "merge exited %d", rc);
    FZ_CHECK(rc == 0 || (errlen > 0 && strchr(errbuf, '\n') == errbuf + errlen - 1), "error not one line: %s", errbuf);
    FZ_CHECK(rc != 0 || errlen == 0, "wrote to stderr and exited 0: %s", errbuf);
    free(errbuf);
    return rc;
}

/* The text without its "mean" lines. */
static void drop_means(char *s)
{
    char *w = s;
    for (char *line = s; *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);
        if (!memmem(line, len, "\"mean\": ", 8)) {
            memmove(w, line, len);
            w += len;
        }
        line += len;
    }
    *w = '\0';
}

static void fuzz_merge(const uint8_t *p, size_t n)
{
    char *once = NULL, *twice = NULL, *thrice = NULL;
    size_t once_len = 0, twice_len = 0, thrice_len = 0;
    if (merge_bytes(p, n, &once, &once_len) == 0) {
        /* The first merge may also normalise (bytes that are not UTF-8
         * become \ufffd, which reads back as U+FFFD itself): from the
         * second on, nothing may change. */
        int rc = merge_bytes((const uint8_t *)once, once_len, &twice, &twice_len);
        FZ_CHECK(rc == 0, "a merged report does not merge again");
        rc = merge_bytes((const uint8_t *)twice, twice_len, &thrice, &thrice_len);
        FZ_CHECK(rc == 0, "a merged report does not merge again");
        drop_means(twice);
        drop_means(thrice);
        FZ_CHECK(strcmp(twice, thrice) == 0, "merging a merged report changed it:\n%s\n---\n%s", twice, thrice);
    }
    free(once);
    free(twice);
    free(thrice);
}

static void fuzz_hdr(const uint8_t *p, size_t n)
{
    struct hist h, back;
    FZ_CHECK(hist_init(&h) == 0 && hist_init(&back) == 0, "out of memory");
    char err[160];
    if (hdr_decode_add(p, n, &h, err, sizeof err) == 0) {
        size_t len;
        struct hdr_buf buf = { 0 };
        const uint8_t *enc = hdr_encode(&buf, &h, &len);
        FZ_CHECK(enc && hdr_decode_add(enc, len, &back, err, sizeof err) == 0, "re-encoding does not decode: %s", err);
        FZ_CHECK(back.count == h.count && memcmp(back.counts, h.counts, HIST_BUCKETS * sizeof *h.counts) == 0,
                 "re-encoding changed the counts");
        hdr_buf_free(&buf);
    } else {
        FZ_CHECK(h.count == 0, "a refused histogram changed the count");
        for (size_t i = 0; i < HIST_BUCKETS; i++)
            FZ_CHECK(h.counts[i] == 0, "a refused histogram changed bucket %zu", i);
    }
    hist_free(&h);
    hist_free(&back);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > FZ_MAX_INPUT)
        return 0;
    if (data[0] & 1)
        fuzz_hdr(data + 1, size - 1);
    else
        fuzz_merge(data + 1, size - 1);
    return 0;
}
