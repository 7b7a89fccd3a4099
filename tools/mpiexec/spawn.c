/* mpiexec's universe: the jobs MPI_Comm_spawn starts in this
 * same mpiexec, one universe key space and the name service. Every job has
 * its own ranks, KVS, barrier and MPI_COMM_WORLD; every process has a
 * universe index (the first job 0..np-1, each spawned job the next free
 * ones), under which the library publishes its network address in the
 * universe key space, so that processes of different jobs can reach each
 * other (docs/dynproc.md). The universe has room for job->cap processes in
 * all (-usize / DMPI_UNIVERSE_SIZE); spawned processes are watched, killed
 * and reaped like the first job's (job.c). Across hosts the agents pass
 * these commands to mpiexec and its answers back, and a spawned job's
 * ranks start through agents of their own (front.c, mpx_front_spawn).
 *
 * Commands (PMI-1 lines, dmpi's own):
 *   dmpi_spawn parent_port= spec=    start a job; spec: commands separated
 *                                    by \036, fields by \037: np, wdir,
 *                                    program, arguments
 *   dmpi_ualloc n=                   set n universe indices aside (no
 *                                    process behind them): the aliases of
 *                                    the processes of another mpiexec run
 *                                    that this run connects to
 *   dmpi_uput key= value=, dmpi_uget key=        universe key space
 *   dmpi_publish service= port=, dmpi_unpublish service=, dmpi_lookup service= */
#include "mpiexec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static dmpi_pmi_line out;

int mpx_universe_setup(mpx_job *job)
{
    job->subs = mpx_xmalloc(sizeof *job->subs);
    job->nsub = 1;
    mpx_sub *s = &job->subs[0];
    memset(s, 0, sizeof *s);
    s->n = job->n;
    snprintf(s->jobid, sizeof s->jobid, "%s", job->jobid);
    snprintf(s->kvsname, sizeof s->kvsname, "%s", job->kvsname);
    s->kvs = job->kvs;
    job->next_base = job->n;
    job->ukvs = mpx_kvs_new();
    return 0;
}

void mpx_universe_free(mpx_job *job)
{
    for (int i = 0; i < job->n; i++) {
        mpx_rank *r = &job->ranks[i];
        if (r->argv)
            for (char **a = r->argv; *a; a++) free(*a);
        free(r->argv);
        free(r->prog);
        free(r->wdir);
    }
    for (int s = 0; s < job->nsub; s++) {
        mpx_sub *sb = &job->subs[s];
        if (s > 0) mpx_kvs_free(sb->kvs);
        free(sb->parent_port);
        for (int k = 0; k < sb->nd; k++) {
            free(sb->dkey[k]);
            free(sb->dval[k]);
        }
        free(sb->dkey);
        free(sb->dval);
    }
    free(job->subs);
    job->subs = NULL;
    if (job->ukvs) mpx_kvs_free(job->ukvs);
    job->ukvs = NULL;
}

static void answer(mpx_job *job, mpx_rank *r, const char *cmd, int rc, const char *msg)
{
    dmpi_pmi_line_begin(&out, cmd);
    dmpi_pmi_line_int(&out, "rc", rc);
    if (msg) dmpi_pmi_line_str(&out, "msg", msg);
    mpx_pmi_reply(job, r, &out);
}

/* ------------------------------------------------------------- spawn */
typedef struct cmd_spec {
    int np;
    char *wdir, *prog;
    char **argv; /* argv[0] is the program as given */
} cmd_spec;

/* Splits s at sep into a NULL-terminated array of copies (empty pieces kept). */
static char **split(const char *s, char sep, int *count)
{
    int n = 1;
    for (const char *c = s; *c; c++) n += *c == sep;
    char **v = mpx_xmalloc(((size_t)n + 1) * sizeof *v);
    int k = 0;
    for (const char *c = s;; c++) {
        const char *e = strchr(c, sep);
        size_t len = e ? (size_t)(e - c) : strlen(c);
        v[k] = mpx_xmalloc(len + 1);
        memcpy(v[k], c, len);
        v[k][len] = '\0';
        k++;
        if (!e) break;
        c = e;
    }
    v[k] = NULL;
    *count = k;
    return v;
}

static void free_vec(char **v)
{
    if (!v) return;
    for (char **a = v; *a; a++) free(*a);
    free(v);
}

/* The program's path as the new ranks will execute it, or NULL with why. */
static char *resolve(const char *prog, const char *wdir, const char **why)
{
    *why = "program not found";
    if (prog[0] == '\0') return NULL;
    char path[8192];
    if (strchr(prog, '/')) {
        if (prog[0] != '/' && wdir && wdir[0]) snprintf(path, sizeof path, "%s/%s", wdir, prog);
        else snprintf(path, sizeof path, "%s", prog);
        if (access(path, F_OK) != 0) return NULL;
        if (access(path, X_OK) != 0) {
            *why = "program not executable";
            return NULL;
        }
        return realpath(path, NULL);
    }
    const char *p = getenv("PATH");
    if (!p) p = "/usr/bin:/bin";
    bool seen = false;
    while (*p) {
        size_t len = strcspn(p, ":");
        snprintf(path, sizeof path, "%.*s/%s", (int)len, len ? p : ".", prog);
        if (access(path, F_OK) == 0) {
            seen = true;
            if (access(path, X_OK) == 0) return realpath(path, NULL);
        }
        p += len + (p[len] == ':');
    }
    if (seen) *why = "program not executable";
    return NULL;
}

static void spawn_fail(mpx_job *job, mpx_rank *r, int cmd, const char *prog, const char *why)
{
    char msg[600];
    if (prog && prog[0]) snprintf(msg, sizeof msg, "%s: %.400s", why, prog);
    else snprintf(msg, sizeof msg, "%s", why);
    dmpi_pmi_line_begin(&out, "dmpi_spawn_result");
    dmpi_pmi_line_int(&out, "rc", -1);
    dmpi_pmi_line_int(&out, "index", cmd);
    dmpi_pmi_line_str(&out, "msg", msg);
    mpx_pmi_reply(job, r, &out);
}

static void do_spawn(mpx_job *job, mpx_rank *r, const dmpi_pmi_msg *m)
{
    const char *spec = dmpi_pmi_msg_str(m, "spec"), *port = dmpi_pmi_msg_str(m, "parent_port");
    if (!spec || !port) {
        spawn_fail(job, r, -1, "", "malformed spawn request");
        return;
    }
    int ncmd;
    char **cmds = split(spec, '\036', &ncmd);
    cmd_spec *c = calloc((size_t)ncmd, sizeof *c);
    int total = 0, bad = -1;
    const char *why = NULL;
    for (int i = 0; c && i < ncmd && bad < 0; i++) {
        int nf;
        char **f = split(cmds[i], '\037', &nf);
        if (nf < 3 || dmpi_pmi_parse_int(f[0], &c[i].np) != 0 || c[i].np < 1) {
            bad = i;
            why = "malformed spawn command";
        } else {
            c[i].wdir = f[1][0] ? strdup(f[1]) : NULL;
            c[i].prog = resolve(f[2], c[i].wdir, &why);
            if (!c[i].prog) bad = i;
            c[i].argv = mpx_xmalloc(((size_t)nf - 1) * sizeof(char *));
            for (int k = 2; k < nf; k++) c[i].argv[k - 2] = strdup(f[k]);
            c[i].argv[nf - 2] = NULL;
            total += c[i].np;
        }
        if (bad >= 0 && !why) why = "program not found";
        if (bad >= 0) {
            char prog[512];
            snprintf(prog, sizeof prog, "%s", nf >= 3 ? f[2] : cmds[i]);
            spawn_fail(job, r, i, prog, why);
        }
        free_vec(f);
    }
    if (!c) spawn_fail(job, r, -1, "", "out of memory");
    else if (bad < 0 && job->next_base + total > job->cap) {
        char msg[200];
        snprintf(msg, sizeof msg, "%d more processes do not fit the universe: it has room for %d in all, "
                 "%d used (mpiexec -usize N or DMPI_UNIVERSE_SIZE=N)", total, job->cap, job->next_base);
        spawn_fail(job, r, -1, "", msg);
        bad = 0;
    } else if (bad < 0 && job->phase != MPX_RUNNING) {
        spawn_fail(job, r, -1, "", "the job is being ended");
        bad = 0;
    }
    if (bad < 0) {
        /* a new job: ranks first .. first+total */
        job->subs = mpx_xrealloc(job->subs, ((size_t)job->nsub + 1) * sizeof *job->subs);
        int s = job->nsub++;
        mpx_sub *sb = &job->subs[s];
        memset(sb, 0, sizeof *sb);
        sb->first = job->n;
        sb->n = total;
        sb->base = job->next_base;
        snprintf(sb->jobid, sizeof sb->jobid, "%ss%d", job->jobid, s);
        snprintf(sb->kvsname, sizeof sb->kvsname, "kvs_%s", sb->jobid);
        sb->kvs = mpx_kvs_new();
        sb->parent_port = strdup(port);
        int k = job->n;
        for (int i = 0; i < ncmd; i++)
            for (int j = 0; j < c[i].np; j++, k++) {
                mpx_rank *q = &job->ranks[k];
                memset(q, 0, sizeof *q);
                q->rank = k - sb->first;
                q->sub = s;
                q->appnum = i;
                q->prog = strdup(c[i].prog);
                int na = 0;
                while (c[i].argv[na]) na++;
                q->argv = mpx_xmalloc(((size_t)na + 1) * sizeof(char *));
                for (int a = 0; a <= na; a++) q->argv[a] = c[i].argv[a] ? strdup(c[i].argv[a]) : NULL;
                q->wdir = c[i].wdir ? strdup(c[i].wdir) : NULL;
                q->pmi_fd = q->out[0].fd = q->out[1].fd = -1;
                q->rd = mpx_xmalloc(sizeof *q->rd);
                dmpi_pmi_reader_init(q->rd);
            }
        int first = job->n;
        job->n += total;
        job->next_base += total;
        int lrc = job->mode == MPX_MODE_FRONT ? mpx_front_spawn(job, s) : mpx_launch_more(job, first, total);
        if (lrc != 0) {
            /* whatever started is killed with the whole job */
            spawn_fail(job, r, -1, "", "cannot start the processes");
            mpx_job_fail(job, 1);
        } else {
            dmpi_pmi_line_begin(&out, "dmpi_spawn_result");
            dmpi_pmi_line_int(&out, "rc", 0);
            dmpi_pmi_line_int(&out, "base", sb->base);
            dmpi_pmi_line_int(&out, "size", total);
            mpx_pmi_reply(job, r, &out);
        }
    }
    for (int i = 0; c && i < ncmd; i++) {
        free(c[i].wdir);
        free(c[i].prog);
        free_vec(c[i].argv);
    }
    free(c);
    free_vec(cmds);
}

/* ------------------------------------------------- keys and names */
static void do_uget(mpx_job *job, mpx_rank *r, const char *cmd, const char *key, const char *attr)
{
    const char *v = key ? mpx_kvs_get(job->ukvs, key) : NULL;
    dmpi_pmi_line_begin(&out, cmd);
    if (v && v[0]) {
        dmpi_pmi_line_int(&out, "rc", 0);
        dmpi_pmi_line_str(&out, "found", "TRUE");
        dmpi_pmi_line_str(&out, attr, v);
    } else {
        dmpi_pmi_line_int(&out, "rc", 1);
        dmpi_pmi_line_str(&out, "found", "FALSE");
    }
    mpx_pmi_reply(job, r, &out);
}

static bool svc_key(char *key, size_t n, const char *service)
{
    if (!service || !service[0] || strlen(service) + 5 > n) return false;
    snprintf(key, n, "svc:%s", service);
    return true;
}

bool mpx_universe_handle(mpx_job *job, mpx_rank *r, const dmpi_pmi_msg *m)
{
    const char *c = m->cmd;
    if (strncmp(c, "dmpi_", 5) != 0) return false;
    if (job->mode == MPX_MODE_AGENT) { /* the universe is mpiexec's */
        mpx_agent_ucmd(job, r, m);
        return true;
    }
    char key[700];
    if (strcmp(c, "dmpi_spawn") == 0) {
        do_spawn(job, r, m);
    } else if (strcmp(c, "dmpi_ualloc") == 0) {
        int n = 0;
        const char *v = dmpi_pmi_msg_str(m, "n");
        if (!v || dmpi_pmi_parse_int(v, &n) != 0 || n < 1) {
            answer(job, r, "dmpi_ualloc_result", -1, "bad count");
        } else if (job->next_base + n > job->cap) {
            snprintf(key, sizeof key, "%d more processes do not fit the universe: it has room for %d in all, "
                     "%d used (mpiexec -usize N or DMPI_UNIVERSE_SIZE=N)", n, job->cap, job->next_base);
            answer(job, r, "dmpi_ualloc_result", -1, key);
        } else {
            dmpi_pmi_line_begin(&out, "dmpi_ualloc_result");
            dmpi_pmi_line_int(&out, "rc", 0);
            dmpi_pmi_line_int(&out, "base", job->next_base);
            mpx_pmi_reply(job, r, &out);
            job->next_base += n;
        }
    } else if (strcmp(c, "dmpi_uput") == 0) {
        const char *k = dmpi_pmi_msg_str(m, "key"), *v = dmpi_pmi_msg_str(m, "value");
        int rc = k && v && k[0] && mpx_kvs_put(job->ukvs, k, v) == 0 ? 0 : -1;
        answer(job, r, "dmpi_uput_result", rc, rc ? "bad_key_or_value" : NULL);
    } else if (strcmp(c, "dmpi_uget") == 0) {
        do_uget(job, r, "dmpi_uget_result", dmpi_pmi_msg_str(m, "key"), "value");
    } else if (strcmp(c, "dmpi_publish") == 0) {
        const char *port = dmpi_pmi_msg_str(m, "port");
        const char *old;
        if (!svc_key(key, sizeof key, dmpi_pmi_msg_str(m, "service")) || !port || !port[0])
            answer(job, r, "dmpi_publish_result", -1, "bad service name or port");
        else if ((old = mpx_kvs_get(job->ukvs, key)) && old[0])
            answer(job, r, "dmpi_publish_result", -1, "the service name is published already");
        else
            answer(job, r, "dmpi_publish_result", mpx_kvs_put(job->ukvs, key, port) ? -1 : 0, NULL);
    } else if (strcmp(c, "dmpi_unpublish") == 0) {
        const char *old;
        if (!svc_key(key, sizeof key, dmpi_pmi_msg_str(m, "service")) ||
            !(old = mpx_kvs_get(job->ukvs, key)) || !old[0])
            answer(job, r, "dmpi_unpublish_result", -1, "the service name is not published");
        else
            answer(job, r, "dmpi_unpublish_result", mpx_kvs_put(job->ukvs, key, "") ? -1 : 0, NULL);
    } else if (strcmp(c, "dmpi_lookup") == 0) {
        bool ok = svc_key(key, sizeof key, dmpi_pmi_msg_str(m, "service"));
        do_uget(job, r, "dmpi_lookup_result", ok ? key : NULL, "port");
    } else {
        return false;
    }
    return true;
}
