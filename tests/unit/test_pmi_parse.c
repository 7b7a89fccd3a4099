/* Unit test of the PMI-1 wire code (src/pmi/pmi_wire.c): good lines parse
 * to the right attributes, malformed ones are rejected, the builder's output
 * parses back to what went in, and the line reader cuts streams correctly
 * and drops over-long lines. Exits 0 when every check passes. */
#include "pmi/pmi_wire.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        checks++;                                                           \
        if (!(cond)) {                                                      \
            failures++;                                                     \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, "\n");                                          \
        }                                                                   \
    } while (0)

/* parses a copy of s (in a buffer of exactly strlen+1 bytes, so any
 * overflow shows under ASan/valgrind) */
static int parse(const char *s, dmpi_pmi_msg *m, char **keep)
{
    size_t n = strlen(s);
    char *b = malloc(n + 1);
    memcpy(b, s, n + 1);
    int rc = dmpi_pmi_parse(b, n, m);
    if (keep) *keep = b;
    else free(b);
    return rc;
}

static void good_lines(void)
{
    dmpi_pmi_msg m;
    char *b;
    int v;

    CHECK(parse("cmd=init pmi_version=1 pmi_subversion=1", &m, &b) == 0, "init");
    CHECK(strcmp(m.cmd, "init") == 0, "cmd %s", m.cmd);
    CHECK(m.nattr == 2, "nattr %d", m.nattr);
    CHECK(dmpi_pmi_msg_int(&m, "pmi_version", &v) == 0 && v == 1, "pmi_version");
    CHECK(dmpi_pmi_msg_int(&m, "pmi_subversion", &v) == 0 && v == 1, "pmi_subversion");
    CHECK(dmpi_pmi_msg_str(&m, "nothere") == NULL, "absent attribute");
    free(b);

    CHECK(parse("cmd=barrier_in\n", &m, &b) == 0 && strcmp(m.cmd, "barrier_in") == 0 && m.nattr == 0,
          "trailing newline");
    free(b);

    CHECK(parse("cmd=get_result rc=0   value=a=b=c  ", &m, &b) == 0, "extra spaces, '=' in value");
    CHECK(strcmp(dmpi_pmi_msg_str(&m, "value"), "a=b=c") == 0, "value %s", dmpi_pmi_msg_str(&m, "value"));
    free(b);

    CHECK(parse("cmd=put kvsname=kvs_1 key=k value=one\\ two\\\\three\\ ", &m, &b) == 0, "escapes");
    CHECK(strcmp(dmpi_pmi_msg_str(&m, "value"), "one two\\three ") == 0, "unescaped '%s'",
          dmpi_pmi_msg_str(&m, "value"));
    free(b);

    CHECK(parse("cmd=put key=k value=", &m, &b) == 0 && strcmp(dmpi_pmi_msg_str(&m, "value"), "") == 0,
          "empty value");
    free(b);

    CHECK(parse("cmd=abort flag exitcode=-7", &m, &b) == 0, "attribute without '='");
    CHECK(m.nattr == 2 && strcmp(m.attr[0].name, "flag") == 0 && m.attr[0].val == NULL, "flag");
    CHECK(dmpi_pmi_msg_str(&m, "flag") == NULL, "flag has no value");
    CHECK(dmpi_pmi_msg_int(&m, "exitcode", &v) == 0 && v == -7, "negative int");
    free(b);

    CHECK(parse("cmd=get key=PMI_process_mapping", &m, NULL) == 0, "underscores in values");
    CHECK(parse("cmd=x a.b=1 c/d=2 e:f=3 g-h=4", &m, NULL) == 0, "punctuation in names");
}

static void bad_lines(void)
{
    dmpi_pmi_msg m;
    static const char *bad[] = {
        "",                       /* empty */
        "\n",                     /* empty line */
        "init",                   /* no cmd= */
        " cmd=init",              /* leading space */
        "cmd=",                   /* empty command */
        "cmd= x=1",               /* empty command */
        "cmd=a b c=1 c=2",        /* repeated attribute */
        "cmd=a cmd=b",            /* repeated cmd */
        "cmd=a x=\\",             /* dangling backslash */
        "cmd=a x=ab\\",           /* dangling backslash at end */
        "cmd=a =x",               /* empty attribute name */
        "cmd=a k\xffy=1",         /* bad byte in a name */
        "cmd=a k!=1",             /* bad char after a name */
        "mcmd=spawn",             /* multi-command form: unsupported */
        "CMD=init",               /* case matters */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(parse(bad[i], &m, NULL) != 0, "accepted bad line '%s'", bad[i]);

    /* embedded NUL */
    char nul[] = "cmd=a x=1\0y=2";
    CHECK(dmpi_pmi_parse(nul, sizeof nul - 1, &m) != 0, "embedded NUL accepted");

    /* attribute name too long */
    char longname[200];
    snprintf(longname, sizeof longname, "cmd=a %0*d=1", DMPI_PMI_NAMELEN_MAX + 1, 0);
    CHECK(parse(longname, &m, NULL) != 0, "over-long name accepted");

    /* too many attributes */
    char many[2000];
    size_t o = (size_t)snprintf(many, sizeof many, "cmd=a");
    for (int i = 0; i < DMPI_PMI_MAXATTRS + 2; i++) o += (size_t)snprintf(many + o, sizeof many - o, " a%d=1", i);
    CHECK(parse(many, &m, NULL) != 0, "too many attributes accepted");

    /* over-long line */
    char *huge = malloc(DMPI_PMI_MAXLINE + 10);
    memset(huge, 'x', DMPI_PMI_MAXLINE + 9);
    memcpy(huge, "cmd=a v=", 8);
    huge[DMPI_PMI_MAXLINE + 9] = '\0';
    CHECK(parse(huge, &m, NULL) != 0, "over-long line accepted");
    /* the longest allowed line is fine */
    huge[DMPI_PMI_MAXLINE - 1] = '\0';
    CHECK(parse(huge, &m, NULL) == 0, "longest line rejected");
    free(huge);

    /* numbers */
    int v;
    static const char *badnum[] = {"cmd=a n=", "cmd=a n=12x", "cmd=a n=-", "cmd=a n=+1", "cmd=a n= 1",
                                   "cmd=a n=2147483648", "cmd=a n=-2147483649", "cmd=a n=99999999999999999999",
                                   "cmd=a n=0x10", "cmd=a n"};
    for (size_t i = 0; i < sizeof badnum / sizeof badnum[0]; i++) {
        char *b;
        int rc = parse(badnum[i], &m, &b);
        CHECK(rc != 0 || dmpi_pmi_msg_int(&m, "n", &v) != 0, "bad number accepted in '%s'", badnum[i]);
        free(b);
    }
    char *b;
    CHECK(parse("cmd=a n=2147483647 m=-2147483648", &m, &b) == 0, "int limits");
    CHECK(dmpi_pmi_msg_int(&m, "n", &v) == 0 && v == INT_MAX, "INT_MAX");
    CHECK(dmpi_pmi_msg_int(&m, "m", &v) == 0 && v == INT_MIN, "INT_MIN");
    free(b);
    CHECK(dmpi_pmi_parse_int(NULL, &v) != 0, "NULL number");
}

static void builder(void)
{
    static dmpi_pmi_line l;
    dmpi_pmi_msg m;
    char val[DMPI_PMI_VALLEN_MAX + 1];
    for (int i = 0; i < DMPI_PMI_VALLEN_MAX; i++) val[i] = (char)(i % 7 == 0 ? ' ' : i % 11 == 0 ? '\\' : 'a' + i % 26);
    val[DMPI_PMI_VALLEN_MAX] = '\0';

    dmpi_pmi_line_begin(&l, "put");
    dmpi_pmi_line_str(&l, "kvsname", "kvs_0123456789abcdef");
    dmpi_pmi_line_str(&l, "key", "some-key");
    dmpi_pmi_line_str(&l, "value", val);
    dmpi_pmi_line_int(&l, "n", -42);
    CHECK(dmpi_pmi_line_end(&l) == 0, "build a long put");
    CHECK(l.len > 0 && l.buf[l.len - 1] == '\n', "ends with newline");
    CHECK(dmpi_pmi_parse(l.buf, l.len, &m) == 0, "round trip parse");
    CHECK(strcmp(m.cmd, "put") == 0, "round trip cmd");
    CHECK(strcmp(dmpi_pmi_msg_str(&m, "value"), val) == 0, "round trip value");
    int v;
    CHECK(dmpi_pmi_msg_int(&m, "n", &v) == 0 && v == -42, "round trip int");

    dmpi_pmi_line_begin(&l, "put");
    dmpi_pmi_line_str(&l, "value", "two\nlines");
    CHECK(dmpi_pmi_line_end(&l) != 0, "newline in a value accepted");

    dmpi_pmi_line_begin(&l, "put");
    dmpi_pmi_line_str(&l, "bad name", "x");
    CHECK(dmpi_pmi_line_end(&l) != 0, "bad attribute name accepted");

    dmpi_pmi_line_begin(&l, "put");
    for (int i = 0; i < 10; i++) dmpi_pmi_line_str(&l, "value", val);
    CHECK(dmpi_pmi_line_end(&l) != 0, "over-long line built");
    CHECK(l.len < sizeof l.buf, "builder stayed inside its buffer");
}

/* feeds s to the reader in pieces of `step` bytes, collecting lines */
static int feed(dmpi_pmi_reader *r, const char *s, size_t n, size_t step, char out[][64], int *nout, int *ndrop)
{
    size_t pos = 0;
    while (pos < n) {
        size_t room;
        char *sp = dmpi_pmi_reader_space(r, &room);
        if (room == 0) return -1;
        size_t k = n - pos < step ? n - pos : step;
        if (k > room) k = room;
        memcpy(sp, s + pos, k);
        dmpi_pmi_reader_commit(r, k);
        pos += k;
        for (;;) {
            char *line;
            size_t len;
            int got = dmpi_pmi_reader_next(r, &line, &len);
            if (got == 0) break;
            if (got < 0) { (*ndrop)++; continue; }
            if (strlen(line) != len) return -1;
            snprintf(out[(*nout)++], 64, "%s", line);
        }
    }
    return 0;
}

static void reader(void)
{
    static dmpi_pmi_reader r;
    char out[16][64];
    const char *stream = "cmd=a\ncmd=b x=1\n\ncmd=c\npartial";
    size_t steps[] = {1, 2, 3, 5, 100};
    for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
        int n = 0, drop = 0;
        dmpi_pmi_reader_init(&r);
        CHECK(feed(&r, stream, strlen(stream), steps[s], out, &n, &drop) == 0, "feed step %zu", steps[s]);
        CHECK(n == 4 && drop == 0, "step %zu: %d lines, %d dropped", steps[s], n, drop);
        CHECK(n == 4 && strcmp(out[0], "cmd=a") == 0 && strcmp(out[1], "cmd=b x=1") == 0 &&
              strcmp(out[2], "") == 0 && strcmp(out[3], "cmd=c") == 0, "step %zu: lines", steps[s]);
        CHECK(dmpi_pmi_reader_partial(&r), "partial line kept");
    }

    /* an over-long line is dropped once, and the lines around it survive */
    size_t big = 3 * DMPI_PMI_MAXLINE;
    char *s = malloc(big + 64);
    if (!s) {
        CHECK(0, "out of memory");
        return;
    }
    size_t o = (size_t)sprintf(s, "cmd=before\n");
    memset(s + o, 'y', big);
    o += big;
    o += (size_t)sprintf(s + o, "\ncmd=after\n");
    size_t bsteps[] = {7, 4096, DMPI_PMI_MAXLINE};
    for (size_t k = 0; k < 3; k++) {
        int n = 0, drop = 0;
        dmpi_pmi_reader_init(&r);
        CHECK(feed(&r, s, o, bsteps[k], out, &n, &drop) == 0, "feed long");
        CHECK(n == 2 && drop == 1, "long line: %d lines, %d drops (step %zu)", n, drop, bsteps[k]);
        CHECK(n == 2 && strcmp(out[0], "cmd=before") == 0 && strcmp(out[1], "cmd=after") == 0, "around long");
        CHECK(!dmpi_pmi_reader_partial(&r), "nothing left");
    }
    free(s);

    /* a line of exactly the maximum length (with its newline) is accepted */
    char *exact = malloc(DMPI_PMI_MAXLINE + 1);
    memset(exact, 'z', DMPI_PMI_MAXLINE - 1);
    exact[DMPI_PMI_MAXLINE - 1] = '\n';
    int n = 0, drop = 0;
    char big_out[1][64];
    dmpi_pmi_reader_init(&r);
    CHECK(feed(&r, exact, DMPI_PMI_MAXLINE, 1000, big_out, &n, &drop) == 0, "feed exact");
    CHECK(n == 1 && drop == 0, "maximum-length line: %d lines, %d drops", n, drop);
    free(exact);
}

/* pseudo-random junk must never crash the parser */
static void junk(void)
{
    unsigned x = 12345;
    static char buf[DMPI_PMI_MAXLINE + 1];
    dmpi_pmi_msg m;
    const char alphabet[] = "cmd= =\\\\ abc019_-/.:\n\t\x01\xff";
    for (int t = 0; t < 20000; t++) {
        size_t n = (x = x * 1103515245u + 12345u) % 300;
        size_t start = 0;
        if (t % 2) { memcpy(buf, "cmd=", 4); start = 4; if (n < 4) n = 4; }
        for (size_t i = start; i < n; i++) buf[i] = alphabet[((x = x * 1103515245u + 12345u) >> 16) % (sizeof alphabet - 1)];
        int rc = dmpi_pmi_parse(buf, n, &m);
        if (rc == 0) {
            CHECK(m.cmd != NULL && m.nattr < DMPI_PMI_MAXATTRS, "parsed junk is well-formed");
        }
    }
}

/* PMI-2 message bodies (dmpi_pmi2_parse) */
static int parse2(const char *s, dmpi_pmi_msg *m, char **keep)
{
    size_t n = strlen(s);
    char *b = malloc(n + 1);
    memcpy(b, s, n + 1);
    int rc = dmpi_pmi2_parse(b, n, m);
    if (keep) *keep = b;
    else free(b);
    return rc;
}

static void pmi2_messages(void)
{
    dmpi_pmi_msg m;
    char *b;
    int v;
    CHECK(parse2("cmd=fullinit-response;rc=0;rank=3;size=4;spawner-jobid=;", &m, &b) == 0, "fullinit-response");
    CHECK(strcmp(m.cmd, "fullinit-response") == 0 && m.nattr == 4, "cmd %s nattr %d", m.cmd, m.nattr);
    CHECK(dmpi_pmi_msg_int(&m, "rank", &v) == 0 && v == 3, "rank");
    CHECK(strcmp(dmpi_pmi_msg_str(&m, "spawner-jobid"), "") == 0, "empty value");
    free(b);
    CHECK(parse2("cmd=kvs-get-response;found=TRUE;value=a;;b=c;rc=0", &m, &b) == 0, "escaped ';', no final ';'");
    CHECK(strcmp(dmpi_pmi_msg_str(&m, "value"), "a;b=c") == 0, "value '%s'", dmpi_pmi_msg_str(&m, "value"));
    CHECK(dmpi_pmi_msg_int(&m, "rc", &v) == 0 && v == 0, "rc after an escaped value");
    free(b);
    CHECK(parse2("cmd=info-getjobattr-response;found=TRUE;value=(vector,(0,2,1));rc=0;", &m, &b) == 0 &&
              strcmp(dmpi_pmi_msg_str(&m, "value"), "(vector,(0,2,1))") == 0,
          "mapping value");
    free(b);
    static const char *bad[] = {"", ";", "cmd=", "rc=0;cmd=x;", "cmd=a b;", "cmd=x;novalue;", "cmd=x;=v;",
                                "cmd=x;a=1;a=2;", "cmd=x;cmd=y;", "this is not PMI", "cmd=x y;"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(parse2(bad[i], &m, NULL) != 0, "accepted bad PMI-2 message '%s'", bad[i]);
    char nul[] = "cmd=x;a=1\0;b=2;";
    CHECK(dmpi_pmi2_parse(nul, sizeof nul - 1, &m) != 0, "embedded NUL accepted");
}

int main(void)
{
    good_lines();
    bad_lines();
    builder();
    reader();
    junk();
    pmi2_messages();
    printf("test_pmi_parse: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
