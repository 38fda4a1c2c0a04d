/*
 * tap_test.c - self-test of tests/tap.h.
 *
 * Each case runs some assertions with tap_state.out redirected into a memory
 * stream (and fresh counters), then checks the exact TAP text they produced
 * and the counters, with the real tap_state restored.
 */
#include "tests/tap.h"

static struct tap_state saved;
static char *cap_buf;
static size_t cap_len;

/* Starts capturing: fresh counters, output into a memory stream. */
static void cap_begin(void)
{
    saved = tap_state;
    tap_state.out = open_memstream(&cap_buf, &cap_len);
    if (!tap_state.out)
        bail_out("open_memstream failed");
    tap_state.planned = -1;
    tap_state.run = 0;
    tap_state.failed = 0;
    tap_state.todo = NULL;
}

/* Stops capturing; returns the captured text (caller frees) and the inner state. */
static char *cap_end(struct tap_state *inner)
{
    fclose(tap_state.out);
    *inner = tap_state;
    tap_state = saved;
    return cap_buf;
}

int main(void)
{
    struct tap_state in;
    char *s;
    int r;

    /* --- ok -------------------------------------------------------------- */
    cap_begin();
    r = ok(1, "hello %d", 5);
    s = cap_end(&in);
    is_str(s, "ok 1 - hello 5\n", "passing ok prints 'ok N - desc'");
    is_int(r, 1, "passing ok returns 1");
    is_int(in.failed, 0, "passing ok counts no failure");
    free(s);

    cap_begin();
    int line = __LINE__ + 1;
    r = ok(0, "broken");
    s = cap_end(&in);
    char want[256];
    snprintf(want, sizeof want, "not ok 1 - broken\n#   Failed test at %s line %d.\n", __FILE__,
             line);
    is_str(s, want, "failing ok prints 'not ok' and where");
    is_int(r, 0, "failing ok returns 0");
    is_int(in.failed, 1, "failing ok counts a failure");
    is_int(in.run, 1, "one test run");
    free(s);

    cap_begin();
    ok(1, "issue #12");
    s = cap_end(&in);
    is_str(s, "ok 1 - issue \\#12\n", "'#' in a description is escaped");
    free(s);

    /* --- is_int / is_uint ------------------------------------------------ */
    cap_begin();
    r = is_int(2 + 3, 6, "sum");
    s = cap_end(&in);
    ok(strstr(s, "not ok 1 - sum\n") != NULL, "is_int mismatch fails");
    ok(strstr(s, "#          got: 5\n#     expected: 6\n") != NULL, "is_int prints got/expected");
    is_int(r, 0, "is_int mismatch returns 0");
    free(s);

    cap_begin();
    r = is_int(-7LL * 1000000000LL, -7000000000LL, "64-bit");
    s = cap_end(&in);
    is_str(s, "ok 1 - 64-bit\n", "is_int compares 64-bit values");
    free(s);

    cap_begin();
    is_uint(0xffffffffu, 0u, "u");
    s = cap_end(&in);
    ok(strstr(s, "#          got: 4294967295 (0xffffffff)\n#     expected: 0 (0x0)\n") != NULL,
       "is_uint prints decimal and hex");
    free(s);

    /* --- is_double ------------------------------------------------------- */
    cap_begin();
    is_double(1.0 + 1e-9, 1.0, 1e-6, "close");
    is_double(NAN, NAN, 0, "nan");
    is_double(1.5, 1.0, 0.25, "far");
    s = cap_end(&in);
    ok(strstr(s, "ok 1 - close\nok 2 - nan\nnot ok 3 - far\n") != NULL,
       "is_double honours the tolerance, NaN equals NaN");
    ok(strstr(s, "#          got: 1.5\n#     expected: 1 (tolerance 0.25)\n") != NULL,
       "is_double prints got/expected/tolerance");
    is_int(in.failed, 1, "one is_double failure");
    free(s);

    /* --- is_str ---------------------------------------------------------- */
    cap_begin();
    is_str("abc", "abc", "same");
    is_str("abc", "abd", "differ");
    is_str(NULL, "x", "null got");
    is_str(NULL, NULL, "both null");
    s = cap_end(&in);
    ok(strstr(s, "ok 1 - same\nnot ok 2 - differ\n") != NULL, "is_str pass and fail");
    ok(strstr(s, "#          got: 'abc'\n#     expected: 'abd'\n") != NULL,
       "is_str quotes strings");
    ok(strstr(s, "#          got: NULL\n#     expected: 'x'\n") != NULL, "is_str shows NULL");
    ok(strstr(s, "ok 4 - both null\n") != NULL, "NULL equals NULL");
    is_int(in.failed, 2, "two is_str failures");
    free(s);

    cap_begin();
    is_str("a\nb", "a\nc", "lines");
    s = cap_end(&in);
    ok(strstr(s, "#          got: 'a\\n'\n#               'b'\n") != NULL,
       "is_str keeps multi-line values as '#' lines");
    free(s);

    /* --- is_mem ---------------------------------------------------------- */
    unsigned char a[32], b[32];
    for (int i = 0; i < 32; i++)
        a[i] = b[i] = (unsigned char)i;
    cap_begin();
    r = is_mem(a, b, sizeof a, "equal");
    b[17] = 0xff;
    is_mem(a, b, sizeof a, "differ");
    s = cap_end(&in);
    is_int(r, 1, "is_mem equal passes");
    ok(strstr(s, "not ok 2 - differ\n") != NULL, "is_mem mismatch fails");
    ok(strstr(s, "#     first difference at byte 17 of 32: got 0x11, expected 0xff\n") != NULL,
       "is_mem names the first differing byte");
    ok(strstr(s, "#          got [16..32): 10 11 12") != NULL, "is_mem dumps got around it");
    ok(strstr(s, "#     expected [16..32): 10 ff 12") != NULL, "is_mem dumps expected around it");
    free(s);

    /* --- skip / todo / diag ---------------------------------------------- */
    cap_begin();
    skip(2, "no GPU");
    s = cap_end(&in);
    is_str(s, "ok 1 # skip no GPU\nok 2 # skip no GPU\n", "skip prints skipped oks");
    is_int(in.run, 2, "skips count as run");
    free(s);

    cap_begin();
    todo_start("later");
    ok(0, "unfinished");
    todo_end();
    ok(1, "after");
    s = cap_end(&in);
    ok(strstr(s, "not ok 1 - unfinished # TODO later\n") != NULL, "todo marks the test");
    ok(strstr(s, "ok 2 - after\n") != NULL && !strstr(s, "after # TODO"), "todo_end ends it");
    is_int(in.failed, 0, "a failing TODO test is not a failure");
    free(s);

    cap_begin();
    diag("one\ntwo");
    s = cap_end(&in);
    is_str(s, "# one\n# two\n", "diag prefixes every line");
    free(s);

    cap_begin();
    skip_all("nothing here");
    s = cap_end(&in);
    is_str(s, "1..0 # SKIP nothing here\n", "skip_all");
    free(s);

    /* --- plan / done_testing --------------------------------------------- */
    cap_begin();
    ok(1, "a");
    ok(0, "b");
    r = done_testing();
    s = cap_end(&in);
    ok(strstr(s, "1..2\n") != NULL, "done_testing prints the plan when there was none");
    ok(strstr(s, "# Looks like you failed 1 test of 2.\n") != NULL, "and a summary");
    is_int(r, 1, "done_testing returns the failure count");
    free(s);

    cap_begin();
    plan(3);
    ok(1, "only one");
    r = done_testing();
    s = cap_end(&in);
    ok(strncmp(s, "1..3\n", 5) == 0, "plan prints 1..N first");
    ok(strstr(s, "# Looks like you planned 3 tests but ran 1.\n") != NULL, "plan mismatch noted");
    is_int(r, 255, "plan mismatch fails");
    free(s);

    cap_begin();
    plan(1);
    ok(1, "x");
    r = done_testing();
    s = cap_end(&in);
    is_str(s, "1..1\nok 1 - x\n", "a clean planned run prints nothing else");
    is_int(r, 0, "and returns 0");
    free(s);

    return done_testing();
}
