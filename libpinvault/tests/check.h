/*
 * The checks of the C unit tests (libpinvault/tests/lib_tests.c, pam/tests/pv_tests.c),
 * one program each: CHECK counts a pass or prints the failed condition and its line.
 */
#ifndef PV_CHECK_H
#define PV_CHECK_H

#include <stdio.h>

static int passed, failed;

#define CHECK(condition) check((condition), #condition, __FILE__, __LINE__)

static void check(int ok, const char *what, const char *file, int line)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAILED %s:%d: %s\n", file, line, what);
    }
}

#endif
