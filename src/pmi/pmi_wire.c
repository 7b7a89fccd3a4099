/* PMI-1 wire format: parser, builder and line reader, and the PMI-2
 * message parser (see pmi_wire.h).
 * Compiled into the library (for the client) and into mpiexec (server). */
#include "pmi_wire.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static bool is_name_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || c == '/' || c == '.' || c == ':';
}

/* Unescapes s[0..n) in place ("\x" -> "x"), NUL-terminates; -1 on a
 * dangling backslash. */
static int unescape(char *s, size_t n)
{
    size_t i = 0, o = 0;
    while (i < n) {
        if (s[i] == '\\') {
            if (i + 1 >= n) return -1;
            i++;
        }
        s[o++] = s[i++];
    }
    s[o] = '\0';
    return 0;
}

/* Appends name=val to m: -1 when name is cmd or repeated, or m is full. */
static int add_attr(dmpi_pmi_msg *m, const char *name, const char *val)
{
    if (strcmp(name, "cmd") == 0) return -1;
    for (int i = 0; i < m->nattr; i++)
        if (strcmp(m->attr[i].name, name) == 0) return -1;
    if (m->nattr >= DMPI_PMI_MAXATTRS - 1) return -1;
    m->attr[m->nattr].name = name;
    m->attr[m->nattr].val = val;
    m->nattr++;
    return 0;
}

int dmpi_pmi_parse(char *buf, size_t len, dmpi_pmi_msg *m)
{
    m->cmd = NULL;
    m->nattr = 0;
    if (len > 0 && buf[len - 1] == '\n') len--;
    if (len >= DMPI_PMI_MAXLINE) return -1;
    if (memchr(buf, '\0', len) != NULL) return -1;
    buf[len] = '\0';
    if (strncmp(buf, "cmd=", 4) != 0) return -1;

    size_t p = 0;
    bool first = true;
    while (p < len) {
        if (buf[p] == ' ') { p++; continue; }
        /* attribute name */
        size_t ns = p;
        while (p < len && is_name_char((unsigned char)buf[p])) p++;
        size_t nl = p - ns;
        if (nl == 0 || nl > DMPI_PMI_NAMELEN_MAX) return -1;
        if (p < len && buf[p] != '=' && buf[p] != ' ') return -1;
        char *name = buf + ns;
        char *val = NULL;
        if (p < len && buf[p] == '=') {
            buf[p++] = '\0'; /* terminates the name */
            size_t vs = p;
            while (p < len && buf[p] != ' ') {
                if (buf[p] == '\\') {
                    if (p + 1 >= len) return -1; /* dangling backslash */
                    p++;
                }
                p++;
            }
            size_t vl = p - vs;
            if (p < len) p++; /* skip the separating space */
            if (unescape(buf + vs, vl) != 0) return -1; /* writes NUL at vs+vl at most */
            val = buf + vs;
        } else {
            if (p < len) buf[p++] = '\0';
        }
        if (first) {
            /* "cmd=NAME" with a non-empty, plain name */
            if (strcmp(name, "cmd") != 0 || val == NULL || val[0] == '\0') return -1;
            for (const char *c = val; *c; c++)
                if (!is_name_char((unsigned char)*c)) return -1;
            m->cmd = val;
            first = false;
            continue;
        }
        if (add_attr(m, name, val) != 0) return -1;
    }
    return m->cmd ? 0 : -1;
}

int dmpi_pmi2_parse(char *buf, size_t len, dmpi_pmi_msg *m)
{
    m->cmd = NULL;
    m->nattr = 0;
    if (memchr(buf, '\0', len) != NULL) return -1;
    buf[len] = '\0';
    size_t p = 0;
    while (p < len) {
        size_t ns = p;
        while (p < len && is_name_char((unsigned char)buf[p])) p++;
        size_t nl = p - ns;
        if (nl == 0 || nl > DMPI_PMI_NAMELEN_MAX || p >= len || buf[p] != '=') return -1;
        buf[p++] = '\0'; /* terminates the name */
        char *name = buf + ns, *val = buf + p;
        size_t o = p;
        while (p < len) { /* the value runs to a single ';' */
            if (buf[p] == ';') {
                if (p + 1 < len && buf[p + 1] == ';') p++; /* ";;": a literal ';' */
                else break;
            }
            buf[o++] = buf[p++];
        }
        if (p < len) p++; /* the ';' */
        buf[o] = '\0';   /* o <= p - 1 < len, or o == len: inside buf[0..len] */
        if (m->cmd == NULL) {
            if (strcmp(name, "cmd") != 0 || val[0] == '\0') return -1;
            for (const char *c = val; *c; c++)
                if (!is_name_char((unsigned char)*c)) return -1;
            m->cmd = val;
        } else if (add_attr(m, name, val) != 0) {
            return -1;
        }
    }
    return m->cmd ? 0 : -1;
}

const char *dmpi_pmi_msg_str(const dmpi_pmi_msg *m, const char *name)
{
    for (int i = 0; i < m->nattr; i++)
        if (strcmp(m->attr[i].name, name) == 0) return m->attr[i].val;
    return NULL;
}

int dmpi_pmi_parse_int(const char *s, int *out)
{
    if (s == NULL) return -1;
    bool neg = false;
    if (*s == '-') { neg = true; s++; }
    if (*s == '\0') return -1;
    long long v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        v = v * 10 + (*s - '0');
        if (v > (long long)INT_MAX + 1) return -1;
    }
    if (neg) v = -v;
    if (v > INT_MAX || v < INT_MIN) return -1;
    *out = (int)v;
    return 0;
}

int dmpi_pmi_msg_int(const dmpi_pmi_msg *m, const char *name, int *out)
{
    return dmpi_pmi_parse_int(dmpi_pmi_msg_str(m, name), out);
}

/* ------------------------------------------------------------- builder */

static void put_raw(dmpi_pmi_line *l, const char *s, size_t n)
{
    if (l->bad) return;
    if (n > DMPI_PMI_MAXLINE - 1 - l->len) { l->bad = true; return; } /* keep room for '\n' */
    memcpy(l->buf + l->len, s, n);
    l->len += n;
}

static void put_name(dmpi_pmi_line *l, const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > DMPI_PMI_NAMELEN_MAX) { l->bad = true; return; }
    for (size_t i = 0; i < n; i++)
        if (!is_name_char((unsigned char)name[i])) { l->bad = true; return; }
    put_raw(l, name, n);
}

void dmpi_pmi_line_begin(dmpi_pmi_line *l, const char *cmd)
{
    l->len = 0;
    l->bad = false;
    put_raw(l, "cmd=", 4);
    put_name(l, cmd);
}

void dmpi_pmi_line_str(dmpi_pmi_line *l, const char *name, const char *val)
{
    put_raw(l, " ", 1);
    put_name(l, name);
    if (val == NULL) return;
    put_raw(l, "=", 1);
    for (const char *c = val; *c && !l->bad; c++) {
        if (*c == '\n') { l->bad = true; return; }
        if (*c == ' ' || *c == '\\') put_raw(l, "\\", 1);
        put_raw(l, c, 1);
    }
}

void dmpi_pmi_line_int(dmpi_pmi_line *l, const char *name, long long val)
{
    char num[32];
    snprintf(num, sizeof num, "%lld", val);
    dmpi_pmi_line_str(l, name, num);
}

int dmpi_pmi_line_end(dmpi_pmi_line *l)
{
    if (l->bad) return -1;
    l->buf[l->len++] = '\n'; /* put_raw always left room for it */
    l->buf[l->len] = '\0';
    return 0;
}

/* -------------------------------------------------------------- reader */

void dmpi_pmi_reader_init(dmpi_pmi_reader *r)
{
    r->start = r->len = 0;
    r->skipping = false;
}

static void compact(dmpi_pmi_reader *r)
{
    if (r->start == 0) return;
    memmove(r->buf, r->buf + r->start, r->len - r->start);
    r->len -= r->start;
    r->start = 0;
}

char *dmpi_pmi_reader_space(dmpi_pmi_reader *r, size_t *room)
{
    if (r->len == sizeof r->buf) compact(r);
    *room = sizeof r->buf - r->len;
    return r->buf + r->len;
}

void dmpi_pmi_reader_commit(dmpi_pmi_reader *r, size_t n)
{
    if (n > sizeof r->buf - r->len) n = sizeof r->buf - r->len;
    r->len += n;
}

int dmpi_pmi_reader_next(dmpi_pmi_reader *r, char **line, size_t *len)
{
    for (;;) {
        char *s = r->buf + r->start;
        size_t n = r->len - r->start;
        char *nl = memchr(s, '\n', n);
        if (r->skipping) {
            if (nl == NULL) { r->start = r->len = 0; return 0; }
            r->start += (size_t)(nl - s) + 1;
            r->skipping = false;
            continue;
        }
        if (nl != NULL) {
            *nl = '\0';
            *line = s;
            *len = (size_t)(nl - s);
            r->start += (size_t)(nl - s) + 1;
            return 1;
        }
        compact(r);
        if (r->len == sizeof r->buf) { /* a full buffer and no newline */
            r->skipping = true;
            r->start = r->len = 0;
            return -1;
        }
        return 0;
    }
}

bool dmpi_pmi_reader_partial(const dmpi_pmi_reader *r)
{
    return r->skipping || r->len > r->start;
}
