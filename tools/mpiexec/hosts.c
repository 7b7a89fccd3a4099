/* Host lists for mpiexec: "-hosts a,b:4" entries and hostfiles ("host",
 * "host:N" or "host slots=N" per line, '#' comments, blank lines), the
 * block placement of the ranks on them and its PMI_process_mapping.
 *
 * Placement: a host's capacity is -ppn N when given, else its slot count,
 * else 1 when some other host has a slot count. Ranks fill the hosts in
 * order, each up to its capacity. More ranks than the capacities hold is an
 * error without --oversubscribe; with it the rest are spread evenly (host
 * order, earlier hosts one more). With no slot counts and no -ppn at all,
 * the ranks go in blocks of ceil(n / hosts). A host named twice is one host
 * (slot counts add up). */
#include "mpiexec.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool valid_host(const char *h, size_t n)
{
    if (n == 0 || n > 255) return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)h[i];
        if (!(isalnum(c) || c == '.' || c == '-' || c == '_')) return false;
    }
    return true;
}

static void add_host(mpx_opts *o, const char *name, size_t n, int slots)
{
    for (int i = 0; i < o->nhosts; i++) {
        if (strlen(o->hosts[i].name) == n && strncmp(o->hosts[i].name, name, n) == 0) {
            o->hosts[i].slots += slots;
            return;
        }
    }
    o->hosts = mpx_xrealloc(o->hosts, sizeof *o->hosts * (size_t)(o->nhosts + 1));
    o->hosts[o->nhosts].name = mpx_xmalloc(n + 1);
    memcpy(o->hosts[o->nhosts].name, name, n);
    o->hosts[o->nhosts].name[n] = '\0';
    o->hosts[o->nhosts].slots = slots;
    o->nhosts++;
}

/* "N" in 1..MPX_MAX_PROCS: the count, or -1 */
static int parse_slots(const char *s, size_t n)
{
    if (n == 0 || n > 6) return -1;
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i])) return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v >= 1 && v <= MPX_MAX_PROCS ? v : -1;
}

int mpx_hosts_add(mpx_opts *o, const char *name, int slots, const char *what)
{
    size_t n = strlen(name);
    if (!valid_host(name, n)) {
        fprintf(stderr, "mpiexec: bad host name '%s' in %s\n", name, what);
        return MPX_EXIT_USAGE;
    }
    add_host(o, name, n, slots > MPX_MAX_PROCS ? MPX_MAX_PROCS : slots < 0 ? 0 : slots);
    return 0;
}

int mpx_hosts_add_list(mpx_opts *o, const char *list)
{
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *colon = memchr(p, ':', len);
        size_t hl = colon ? (size_t)(colon - p) : len;
        int slots = 0;
        if (colon && (slots = parse_slots(colon + 1, len - hl - 1)) < 0) {
            fprintf(stderr, "mpiexec: bad slot count in host '%.*s' (want HOST:N, N from 1 to %d)\n",
                    (int)len, p, MPX_MAX_PROCS);
            return MPX_EXIT_USAGE;
        }
        if (!valid_host(p, hl)) {
            fprintf(stderr, "mpiexec: bad host name '%.*s' in host list '%s'\n", (int)hl, p, list);
            return MPX_EXIT_USAGE;
        }
        add_host(o, p, hl, slots);
        if (!comma) return 0;
        p = comma + 1;
    }
}

int mpx_hosts_read_file(mpx_opts *o, const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "mpiexec: cannot read hostfile %s: %s\n", path, strerror(errno));
        return MPX_EXIT_USAGE;
    }
    char line[1024];
    int lineno = 0, rc = 0, before = o->nhosts;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *w[3];
        int nw = 0;
        for (char *t = strtok(line, " \t\r\n"); t; t = strtok(NULL, " \t\r\n")) {
            if (nw == 3) { nw = 4; break; }
            w[nw++] = t;
        }
        if (nw == 0) continue;
        size_t hl = strcspn(w[0], ":");
        int slots = 0;
        bool ok = nw <= 2 && valid_host(w[0], hl);
        if (ok && w[0][hl] == ':') ok = nw == 1 && (slots = parse_slots(w[0] + hl + 1, strlen(w[0] + hl + 1))) > 0;
        if (ok && nw == 2) ok = strncmp(w[1], "slots=", 6) == 0 && (slots = parse_slots(w[1] + 6, strlen(w[1] + 6))) > 0;
        if (!ok) {
            fprintf(stderr, "mpiexec: %s:%d: malformed line (want HOST, HOST:N or HOST slots=N)\n", path, lineno);
            rc = MPX_EXIT_USAGE;
            break;
        }
        add_host(o, w[0], hl, slots);
    }
    if (rc == 0 && ferror(f)) {
        fprintf(stderr, "mpiexec: cannot read hostfile %s: %s\n", path, strerror(errno));
        rc = MPX_EXIT_USAGE;
    }
    fclose(f);
    if (rc == 0 && o->nhosts == before) {
        fprintf(stderr, "mpiexec: hostfile %s names no host\n", path);
        rc = MPX_EXIT_USAGE;
    }
    return rc;
}

void mpx_hosts_free(mpx_opts *o)
{
    for (int i = 0; i < o->nhosts; i++) free(o->hosts[i].name);
    free(o->hosts);
    o->hosts = NULL;
    o->nhosts = 0;
}

int mpx_hosts_place(const mpx_opts *o, int *count)
{
    int h = o->nhosts, n = o->np;
    bool any_slots = false;
    for (int i = 0; i < h; i++) any_slots |= o->hosts[i].slots > 0;
    if (o->ppn == 0 && !any_slots) { /* nothing known: blocks of ceil(n/h) */
        int blk = (n + h - 1) / h, left = n;
        for (int i = 0; i < h; i++) {
            count[i] = left < blk ? left : blk;
            left -= count[i];
        }
        return 0;
    }
    long cap = 0;
    for (int i = 0; i < h; i++) cap += o->ppn ? o->ppn : o->hosts[i].slots ? o->hosts[i].slots : 1;
    if (n > cap && !o->oversubscribe) {
        fprintf(stderr,
                "mpiexec: %d processes requested but the %d host(s)%s have only %ld slot(s)%s; "
                "use --oversubscribe to run more processes than slots\n",
                n, h, o->from_alloc ? " of the Slurm allocation" : "", cap, o->ppn ? " (-ppn)" : "");
        return MPX_EXIT_USAGE;
    }
    int left = n;
    for (int i = 0; i < h; i++) {
        int c = o->ppn ? o->ppn : o->hosts[i].slots ? o->hosts[i].slots : 1;
        count[i] = left < c ? left : c;
        left -= count[i];
    }
    for (int i = 0; i < h; i++) count[i] += left / h + (i < left % h ? 1 : 0);
    return 0;
}

char *mpx_hosts_mapping(const int *count, int nnodes)
{
    size_t cap = 32 + (size_t)nnodes * 40;
    char *s = mpx_xmalloc(cap);
    size_t o = (size_t)snprintf(s, cap, "(vector");
    for (int k = 0; k < nnodes;) {
        int j = k + 1;
        while (j < nnodes && count[j] == count[k]) j++; /* nodes k..j-1 hold as many */
        o += (size_t)snprintf(s + o, cap - o, ",(%d,%d,%d)", k, j - k, count[k]);
        k = j;
    }
    snprintf(s + o, cap - o, ")");
    return s;
}
