/* test/fuzz/fuzz_html.c — `shb report --html` (html_cmd.c, html.c, svg.c) on
 * any bytes as its one report file: the JSON reader's tree, whatever it
 * holds, drawn into a page. What must hold:
 *   - nothing crashes, reads out of bounds, leaks or hangs (ASan, UBSan,
 *     libFuzzer's timeout: every loop over ticks and points is bounded);
 *   - the exit status is 0 or 2 (bad input), and on 2 one line says why;
 *   - on 0, the page has exactly one <script> element (its own) and no
 *     "<svg" or "<img" beyond what it draws: a report's strings cannot
 *     open a tag, because every one is escaped. */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "report/html_cmd.h"

static size_t occurrences(const char *hay, size_t n, const char *needle)
{
    size_t k = 0, len = strlen(needle);
    for (const char *p = hay; (p = memmem(p, n - (size_t)(p - hay), needle, len)); p += len)
        k++;
    return k;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_INPUT)
        return 0;
    int in = memfd_create("fuzz_html_in", 0), out = memfd_create("fuzz_html_out", 0);
    FZ_CHECK(in >= 0 && out >= 0, "memfd_create");
    FZ_CHECK(write(in, data, size) == (ssize_t)size, "write");
    char in_path[64], out_path[64];
    snprintf(in_path, sizeof in_path, "/proc/self/fd/%d", in);
    snprintf(out_path, sizeof out_path, "/proc/self/fd/%d", out);
    char *errbuf = NULL;
    size_t errlen = 0;
    FILE *e = open_memstream(&errbuf, &errlen);
    char *argv[] = { "report", "--html", out_path, in_path, NULL };
    int rc = html_cmd_main(4, argv, stdout, e);
    fclose(e);
    FZ_CHECK(rc == 0 || rc == 2, "report exited %d: %s", rc, errbuf);
    FZ_CHECK(rc == 0 || (errlen > 0 && strchr(errbuf, '\n') == errbuf + errlen - 1), "error not one line: %s", errbuf);
    FZ_CHECK(rc != 0 || errlen == 0, "wrote to stderr and exited 0: %s", errbuf);
    if (rc == 0) {
        off_t n = lseek(out, 0, SEEK_END);
        FZ_CHECK(n > 0, "an empty page");
        char *page = mmap(NULL, (size_t)n, PROT_READ, MAP_PRIVATE, out, 0);
        FZ_CHECK(page != MAP_FAILED, "mmap");
        FZ_CHECK(occurrences(page, (size_t)n, "<script") == 1, "a report string opened a script");
        FZ_CHECK(occurrences(page, (size_t)n, "<img") == 0, "a report string opened an img");
        munmap(page, (size_t)n);
    }
    free(errbuf);
    close(in);
    close(out);
    return 0;
}
