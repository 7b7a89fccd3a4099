/* libFuzzer harness for the PMI wire format (src/pmi/pmi_wire.c), which
 * both the library and mpiexec use on bytes from the other side.
 *
 * For an arbitrary byte string it checks that
 *   - dmpi_pmi_parse never reads or writes outside the line (ASan) and, when
 *     it accepts the line, every name and value it returns is a NUL-
 *     terminated string inside the buffer;
 *   - a parsed line rebuilt with the line builder parses back to the same
 *     command and attributes (escaping round-trips);
 *   - the line reader, fed the same bytes in arbitrary chunks, never
 *     returns a line longer than DMPI_PMI_MAXLINE and never overflows;
 *   - dmpi_pmi_parse_int accepts exactly the decimal ints.
 * Built and run by tests/fuzz/run_fuzz.sh. */
#include "pmi_wire.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REQUIRE(c)                                                              \
    do {                                                                        \
        if (!(c)) {                                                             \
            fprintf(stderr, "fuzz_pmi_wire: %s:%d: %s\n", __FILE__, __LINE__, #c); \
            abort();                                                            \
        }                                                                       \
    } while (0)

static void check_str(const char *s, const char *buf, size_t cap)
{
    REQUIRE(s >= buf && s < buf + cap);
    REQUIRE(memchr(s, '\0', (size_t)(buf + cap - s)) != NULL);
}

static void check_int(const char *s)
{
    int v;
    if (dmpi_pmi_parse_int(s, &v) != 0) return;
    char *end;
    long long ref = strtoll(s, &end, 10);
    REQUIRE(*s != '\0' && *end == '\0' && *s != '+' && *s != ' ');
    REQUIRE(ref == v);
}

/* Parse a copy of data[0..n); on success check it and round-trip it. */
static void parse_and_check(const char *data, size_t n)
{
    char *buf = malloc(n + 1);
    if (!buf) return;
    memcpy(buf, data, n);
    dmpi_pmi_msg m;
    if (dmpi_pmi_parse(buf, n, &m) == 0) {
        REQUIRE(m.cmd != NULL);
        REQUIRE(m.nattr >= 0 && m.nattr < DMPI_PMI_MAXATTRS);
        check_str(m.cmd, buf, n + 1);
        for (int i = 0; i < m.nattr; i++) {
            check_str(m.attr[i].name, buf, n + 1);
            if (m.attr[i].val) {
                check_str(m.attr[i].val, buf, n + 1);
                check_int(m.attr[i].val);
            }
            REQUIRE(dmpi_pmi_msg_str(&m, m.attr[i].name) == m.attr[i].val);
        }
        /* rebuild and parse again */
        static dmpi_pmi_line l;
        dmpi_pmi_line_begin(&l, m.cmd);
        for (int i = 0; i < m.nattr; i++) dmpi_pmi_line_str(&l, m.attr[i].name, m.attr[i].val);
        if (dmpi_pmi_line_end(&l) == 0) {
            REQUIRE(l.len <= DMPI_PMI_MAXLINE && l.buf[l.len - 1] == '\n');
            char *copy = malloc(l.len + 1);
            REQUIRE(copy != NULL);
            memcpy(copy, l.buf, l.len);
            dmpi_pmi_msg m2;
            REQUIRE(dmpi_pmi_parse(copy, l.len, &m2) == 0);
            REQUIRE(strcmp(m2.cmd, m.cmd) == 0 && m2.nattr == m.nattr);
            for (int i = 0; i < m.nattr; i++) {
                REQUIRE(strcmp(m2.attr[i].name, m.attr[i].name) == 0);
                REQUIRE((m2.attr[i].val == NULL) == (m.attr[i].val == NULL));
                if (m.attr[i].val) REQUIRE(strcmp(m2.attr[i].val, m.attr[i].val) == 0);
            }
            free(copy);
        }
    } else {
        REQUIRE(m.nattr >= 0 && m.nattr < DMPI_PMI_MAXATTRS);
    }
    free(buf);
}

/* The input as a PMI-2 message body: parsed strings stay inside it. */
static void parse2_and_check(const char *data, size_t n)
{
    char *buf = malloc(n + 1);
    if (!buf) return;
    memcpy(buf, data, n);
    dmpi_pmi_msg m;
    if (dmpi_pmi2_parse(buf, n, &m) == 0) {
        REQUIRE(m.cmd != NULL && m.nattr >= 0 && m.nattr < DMPI_PMI_MAXATTRS);
        check_str(m.cmd, buf, n + 1);
        for (int i = 0; i < m.nattr; i++) {
            check_str(m.attr[i].name, buf, n + 1);
            check_str(m.attr[i].val, buf, n + 1);
        }
    }
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the whole input as one line, and as a PMI-2 message */
    parse_and_check((const char *)data, size);
    parse2_and_check((const char *)data, size);

    /* the input as a byte stream cut into lines; the first byte picks the
     * chunk sizes */
    static dmpi_pmi_reader rd;
    dmpi_pmi_reader_init(&rd);
    unsigned seed = size ? data[0] : 1;
    size_t off = 0;
    int guard = 0;
    while (off < size && guard++ < 100000) {
        size_t room;
        char *space = dmpi_pmi_reader_space(&rd, &room);
        REQUIRE(room <= sizeof rd.buf);
        if (room == 0) {
            char *line;
            size_t len;
            REQUIRE(dmpi_pmi_reader_next(&rd, &line, &len) != 0); /* must make room */
            continue;
        }
        seed = seed * 1103515245u + 12345u;
        size_t chunk = 1 + (seed >> 16) % 9000;
        if (chunk > room) chunk = room;
        if (chunk > size - off) chunk = size - off;
        memcpy(space, data + off, chunk);
        dmpi_pmi_reader_commit(&rd, chunk);
        off += chunk;
        char *line;
        size_t len;
        int rc;
        while ((rc = dmpi_pmi_reader_next(&rd, &line, &len)) != 0) {
            if (rc < 0) continue; /* an over-long line is being dropped */
            REQUIRE(len < DMPI_PMI_MAXLINE);
            REQUIRE(line >= rd.buf && line + len < rd.buf + sizeof rd.buf);
            REQUIRE(line[len] == '\0');
            parse_and_check(line, len);
        }
    }
    (void)dmpi_pmi_reader_partial(&rd);
    return 0;
}
