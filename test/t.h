/* test/t.h — the smallest test harness that can fail.
 *
 * Each check prints "PASS name" or "FAIL name: why" on its own line; test/run.sh
 * counts those lines across all test programs and prints "N passed, N failed".
 * A test binary exits non-zero when any check failed. */
#ifndef SHB_T_H
#define SHB_T_H

#include <stdio.h>
#include <string.h>

static int t_failed_;

#define T_CHECK(name, cond, ...)                                  \
    do {                                                          \
        if (cond) {                                               \
            printf("PASS %s\n", (name));                          \
        } else {                                                  \
            t_failed_++;                                          \
            printf("FAIL %s: ", (name));                          \
            printf(__VA_ARGS__);                                  \
            printf(" (%s:%d)\n", __FILE__, __LINE__);             \
        }                                                         \
    } while (0)

/* Silent check inside a loop: only failures print; returns the condition. */
#define T_QUIET(name, cond, ...)                                  \
    ((cond) ? 1 : (t_failed_++, printf("FAIL %s: ", (name)),      \
                   printf(__VA_ARGS__), printf(" (%s:%d)\n", __FILE__, __LINE__), 0))

#define T_DONE() return t_failed_ ? 1 : 0

#endif
