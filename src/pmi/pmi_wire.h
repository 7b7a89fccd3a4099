/* PMI-1 "simple" wire format, shared by the PMI client (src/pmi/pmi_client.c,
 * inside the library) and the PMI server inside mpiexec (tools/mpiexec).
 *
 * A message is one line: "cmd=NAME attr=value attr=value ...\n". Attributes
 * are separated by spaces; a value runs to the next unescaped space or the
 * end of the line; a backslash makes the next byte literal (so values can
 * hold spaces and backslashes). An attribute may also appear without "=".
 *
 * This file has no I/O and no allocation: a parser that rejects malformed
 * lines without ever writing outside the caller's buffer, a line builder,
 * and a line reader that cuts a byte stream into lines of bounded length. */
#ifndef DMPI_PMI_WIRE_H
#define DMPI_PMI_WIRE_H

#include <stdbool.h>
#include <stddef.h>

enum {
    DMPI_PMI_MAXLINE = 8192,     /* longest line accepted, '\n' included */
    DMPI_PMI_MAXATTRS = 32,      /* attributes in one line, cmd= included */
    DMPI_PMI_NAMELEN_MAX = 64,   /* attribute names (cmd, key, ...) */
    DMPI_PMI_KEYLEN_MAX = 64,    /* KVS keys, NUL excluded */
    DMPI_PMI_VALLEN_MAX = 2048,  /* KVS values, NUL excluded, unescaped */
    DMPI_PMI_KVSNAME_MAX = 256,  /* KVS names, NUL excluded */
};

typedef struct dmpi_pmi_attr {
    const char *name;
    const char *val; /* NULL when the attribute had no "=" */
} dmpi_pmi_attr;

/* A parsed line. Strings point into the buffer given to dmpi_pmi_parse. */
typedef struct dmpi_pmi_msg {
    const char *cmd;
    int nattr; /* attributes other than cmd */
    dmpi_pmi_attr attr[DMPI_PMI_MAXATTRS];
} dmpi_pmi_msg;

/* Parses buf[0..len) in place (the line without its '\n'; a trailing '\n'
 * is tolerated). Writes a NUL at buf[len], so buf must hold len+1 bytes.
 * Returns 0, or -1 when the line is malformed: too long, holds a NUL, does
 * not start with "cmd=NAME", has a bad attribute name, a repeated attribute,
 * too many attributes, or a dangling backslash. */
int dmpi_pmi_parse(char *buf, size_t len, dmpi_pmi_msg *m);

/* Parses a PMI-2 message body in place: "cmd=NAME;key=val;...;" (the
 * trailing ';' optional; ";;" inside a value is a literal ';'). Writes a
 * NUL at buf[len], so buf must hold len+1 bytes. Returns 0, or -1 when
 * malformed: no leading "cmd=NAME", an item without '=', a bad or repeated
 * name, too many items, or a NUL inside. Only the names differ from PMI-1:
 * they may hold '-' ("kvs-get-response"). */
int dmpi_pmi2_parse(char *buf, size_t len, dmpi_pmi_msg *m);

/* Value of attribute name, or NULL when absent or given without "=". */
const char *dmpi_pmi_msg_str(const dmpi_pmi_msg *m, const char *name);

/* Integer value of attribute name: 0 and *out set, or -1 when absent or not
 * a plain decimal int ("-"? digits, in int range). */
int dmpi_pmi_msg_int(const dmpi_pmi_msg *m, const char *name, int *out);

/* Strict decimal int parse of a whole string (used for env variables too). */
int dmpi_pmi_parse_int(const char *s, int *out);

/* Line builder: begin, add attributes, end. Any error (line too long, a
 * value holding '\n' or NUL-less garbage) sticks and makes end() fail. */
typedef struct dmpi_pmi_line {
    size_t len;
    bool bad;
    char buf[DMPI_PMI_MAXLINE + 1];
} dmpi_pmi_line;

void dmpi_pmi_line_begin(dmpi_pmi_line *l, const char *cmd);
void dmpi_pmi_line_str(dmpi_pmi_line *l, const char *name, const char *val);
void dmpi_pmi_line_int(dmpi_pmi_line *l, const char *name, long long val);
/* Appends '\n'. 0 and the line in l->buf[0..l->len), or -1. */
int dmpi_pmi_line_end(dmpi_pmi_line *l);

/* Line reader over a byte stream. Usage: read into reader_space(), then
 * reader_commit(n), then call reader_next() until it returns 0. */
typedef struct dmpi_pmi_reader {
    size_t start, len; /* unread bytes are buf[start..len) */
    bool skipping;     /* dropping the rest of an over-long line */
    char buf[DMPI_PMI_MAXLINE];
} dmpi_pmi_reader;

void dmpi_pmi_reader_init(dmpi_pmi_reader *r);
/* Free space to read into; *room is 0 only if reader_next was not drained. */
char *dmpi_pmi_reader_space(dmpi_pmi_reader *r, size_t *room);
void dmpi_pmi_reader_commit(dmpi_pmi_reader *r, size_t n);
/* 1: a complete line in *line[0..*len) (its '\n' replaced by NUL; valid
 * until the next reader call); 0: no complete line buffered; -1: a line
 * longer than DMPI_PMI_MAXLINE was found and is being dropped. */
int dmpi_pmi_reader_next(dmpi_pmi_reader *r, char **line, size_t *len);
/* True when bytes of an unfinished line are buffered. */
bool dmpi_pmi_reader_partial(const dmpi_pmi_reader *r);

#endif
