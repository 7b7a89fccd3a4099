/* Slurm host lists (SLURM_JOB_NODELIST) and per-node counts
 * (SLURM_TASKS_PER_NODE) for mpiexec inside an allocation.
 *
 * A host list is names separated by commas or blanks (empty entries are
 * skipped). A name may hold bracket groups of numbers and ranges:
 * "n[01-03,07]" is n01 n02 n03 n07; a range keeps the width of its lower
 * bound ("[08-10]" is 08 09 10, "[8-10]" is 8 9 10). Slurm writes only one
 * group, at the end of a name, but reads several ("r[1-2]n[08-10]"); their
 * product comes in Slurm's order: the last group varies fastest, then the
 * first, the second, and so on (a[1-2]b[3-4]c[5-6] gives a1b3c5 a1b3c6
 * a2b3c5 a2b3c6 a1b4c5 ...). Text after the last group ("gpu[1-2]x") is
 * accepted here, though Slurm itself refuses it. Duplicates are kept. */
#include "hostlist.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GROUPS 16   /* bracket groups in one name */
#define MAX_RANGES 1024 /* ranges in one group */
#define MAX_DIGITS 18

typedef struct range {
    unsigned long long lo, hi;
    int width;
} range;

typedef struct group {
    range *r;
    int nr;
    long count;         /* numbers in the group */
    const char *after;  /* text after the group, up to the next group */
    size_t after_len;
} group;

/* err = "WHY 'TEXT'" (TEXT: s, n; none when s is NULL); returns -1 */
static int fail(char *err, size_t errlen, const char *why, const char *s, size_t n)
{
    if (err && errlen && s) snprintf(err, errlen, "%s '%.*s'", why, (int)n, s);
    else if (err && errlen) snprintf(err, errlen, "%s", why);
    return -1;
}

/* "7" or "01-03": one range; 0 or -1 */
static int parse_range(const char *s, size_t n, range *r)
{
    const char *dash = memchr(s, '-', n);
    size_t ll = dash ? (size_t)(dash - s) : n, hl = dash ? n - ll - 1 : n;
    const char *hs = dash ? dash + 1 : s;
    if (ll == 0 || hl == 0 || ll > MAX_DIGITS || hl > MAX_DIGITS) return -1;
    r->lo = r->hi = 0;
    for (size_t i = 0; i < ll; i++) {
        if (!isdigit((unsigned char)s[i])) return -1;
        r->lo = r->lo * 10 + (unsigned)(s[i] - '0');
    }
    for (size_t i = 0; i < hl; i++) {
        if (!isdigit((unsigned char)hs[i])) return -1;
        r->hi = r->hi * 10 + (unsigned)(hs[i] - '0');
    }
    r->width = (int)ll;
    return r->lo <= r->hi ? 0 : -1;
}

/* The ranges between '[' and ']' (s, n); 0 or -1 with err set */
static int parse_group(const char *s, size_t n, group *g, char *err, size_t errlen)
{
    g->r = NULL;
    g->nr = 0;
    g->count = 0;
    for (size_t i = 0; i <= n;) {
        size_t j = i;
        while (j < n && s[j] != ',') j++;
        range r;
        if (g->nr == MAX_RANGES || parse_range(s + i, j - i, &r) != 0)
            return fail(err, errlen, "bad range", s + i, j - i);
        if (r.hi - r.lo >= MPX_HOSTLIST_MAX || g->count + (long)(r.hi - r.lo + 1) > MPX_HOSTLIST_MAX)
            return fail(err, errlen, "too many numbers in range", s + i, j - i);
        range *nr = realloc(g->r, sizeof *nr * (size_t)(g->nr + 1));
        if (nr == NULL) return fail(err, errlen, "out of memory", NULL, 0);
        g->r = nr;
        g->r[g->nr++] = r;
        g->count += (long)(r.hi - r.lo + 1);
        i = j + 1;
    }
    return 0;
}

/* The k-th number of g, written at out (its width, zero-padded) */
static size_t put_number(const group *g, long k, char *out)
{
    for (int i = 0; i < g->nr; i++) {
        long c = (long)(g->r[i].hi - g->r[i].lo + 1);
        if (k < c) return (size_t)sprintf(out, "%0*llu", g->r[i].width, g->r[i].lo + (unsigned long long)k);
        k -= c;
    }
    return 0;
}

typedef struct out_list {
    char **v;
    int n, cap;
} out_list;

static int push(out_list *o, const char *s, size_t n)
{
    if (o->n == o->cap) {
        int cap = o->cap ? 2 * o->cap : 16;
        char **nv = realloc(o->v, sizeof *nv * (size_t)cap);
        if (nv == NULL) return -1;
        o->v = nv;
        o->cap = cap;
    }
    char *c = malloc(n + 1);
    if (c == NULL) return -1;
    memcpy(c, s, n);
    c[n] = '\0';
    o->v[o->n++] = c;
    return 0;
}

/* One name (s, n) with its groups expanded onto o; 0 or -1 with err */
static int expand_name(const char *s, size_t n, out_list *o, char *err, size_t errlen)
{
    group g[MAX_GROUPS];
    int ng = 0, rc = -1;
    size_t lead = strcspn(s, "[]");
    if (lead > n) lead = n;
    const char *p = s + lead, *end = s + n;
    while (p < end) {
        if (*p == ']') { fail(err, errlen, "']' without '[' in", s, n); goto out; }
        const char *close = memchr(p, ']', (size_t)(end - p));
        const char *open2 = memchr(p + 1, '[', (size_t)(end - p - 1));
        if (close == NULL || (open2 && open2 < close)) { fail(err, errlen, "unclosed '[' in", s, n); goto out; }
        if (ng == MAX_GROUPS) { fail(err, errlen, "too many bracket groups in", s, n); goto out; }
        if (parse_group(p + 1, (size_t)(close - p - 1), &g[ng], err, errlen) != 0) { ng++; goto out; }
        const char *q = close + 1;
        while (q < end && *q != '[' && *q != ']') q++;
        g[ng].after = close + 1;
        g[ng++].after_len = (size_t)(q - close - 1);
        p = q;
    }
    long total = 1;
    for (int i = 0; i < ng; i++) {
        total *= g[i].count;
        if (total > MPX_HOSTLIST_MAX - o->n) { fail(err, errlen, "too many names from", s, n); goto out; }
    }
    /* odometer; fastest first: the last group, then the first, the second... */
    int order[MAX_GROUPS];
    long idx[MAX_GROUPS] = {0};
    for (int i = 0; i < ng; i++) order[i] = i == 0 ? ng - 1 : i - 1;
    char *buf = malloc(n + (size_t)ng * (MAX_DIGITS + 2) + 1);
    if (buf == NULL) { fail(err, errlen, "out of memory", NULL, 0); goto out; }
    for (long k = 0; k < total; k++) {
        size_t len = lead;
        memcpy(buf, s, lead);
        for (int i = 0; i < ng; i++) {
            len += put_number(&g[i], idx[i], buf + len);
            memcpy(buf + len, g[i].after, g[i].after_len);
            len += g[i].after_len;
        }
        if (push(o, buf, len) != 0) {
            free(buf);
            fail(err, errlen, "out of memory", NULL, 0);
            goto out;
        }
        for (int i = 0; i < ng; i++) { /* next */
            int j = order[i];
            if (++idx[j] < g[j].count) break;
            idx[j] = 0;
        }
    }
    free(buf);
    rc = 0;
out:
    for (int i = 0; i < ng; i++) free(g[i].r);
    return rc;
}

int mpx_hostlist_expand(const char *list, char ***names, char *err, size_t errlen)
{
    out_list o = {NULL, 0, 0};
    *names = NULL;
    const char *p = list;
    while (*p) {
        if (*p == ',' || isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *q = p;
        int depth = 0;
        while (*q && (depth > 0 || !(*q == ',' || isspace((unsigned char)*q)))) {
            if (*q == '[') depth++;
            else if (*q == ']' && depth > 0) depth--;
            q++;
        }
        if (expand_name(p, (size_t)(q - p), &o, err, errlen) != 0) {
            mpx_hostlist_free(o.v, o.n);
            return -1;
        }
        p = q;
    }
    *names = o.v;
    return o.n;
}

void mpx_hostlist_free(char **names, int n)
{
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
}

/* digits at *p as a number in 1..max; advances *p; -1 if none or out of range */
static long read_count(const char **p, long max)
{
    long v = 0;
    const char *s = *p;
    if (!isdigit((unsigned char)*s)) return -1;
    while (isdigit((unsigned char)*s)) {
        v = v * 10 + (*s++ - '0');
        if (v > max) return -1;
    }
    *p = s;
    return v >= 1 ? v : -1;
}

int mpx_hostlist_counts(const char *spec, int *out, int max)
{
    const char *p = spec;
    long total = 0;
    if (*p == '\0') return -1;
    for (;;) {
        long v = read_count(&p, 1000000), rep = 1;
        if (v < 0) return -1;
        if (p[0] == '(' && p[1] == 'x') {
            p += 2;
            rep = read_count(&p, MPX_HOSTLIST_MAX);
            if (rep < 0 || *p++ != ')') return -1;
        }
        if (total + rep > MPX_HOSTLIST_MAX) return -1;
        for (long i = 0; i < rep; i++, total++)
            if (total < max) out[total] = (int)v;
        if (*p == '\0') return (int)total;
        if (*p++ != ',') return -1;
    }
}
