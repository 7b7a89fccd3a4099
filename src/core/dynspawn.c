/* MPI_Comm_spawn(_multiple) and the parent intercommunicator. The root
 * opens a port, asks mpiexec to start the new job (PMI command dmpi_spawn,
 * tools/mpiexec/spawn.c), which hands the port to the children as
 * $DMPI_PARENT_PORT; the parents accept on it while the children, at the
 * end of their MPI_Init, connect to it over their MPI_COMM_WORLD. A spawn
 * mpiexec refuses (a missing program, a full universe) starts nothing:
 * every requested process gets MPI_ERR_SPAWN. */
#include "core/dynproc.h"
#include "coll/coll.h"
#include "core/info.h"
#include "pmi/pmi.h"
#include "pmi/pmi_wire.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static dmpi_comm *parent;

dmpi_comm *dmpi_dyn_parent(void) { return parent; }

void dmpi_dyn_comm_freed(dmpi_comm *c)
{
    if (c && c == parent) parent = NULL;
    dmpi_dyn_watch_drop(c);
}

int dmpi_dyn_init_child(char *err)
{
    const char *port = getenv("DMPI_PARENT_PORT");
    if (!port || !*port) return MPI_SUCCESS;
    dmpi_comm *c;
    int rc = dmpi_dyn_connect(port, 0, &dmpi_comm_world_obj, &c, err);
    if (rc != MPI_SUCCESS) return rc;
    snprintf(c->name, sizeof c->name, "MPI_COMM_PARENT");
    parent = c;
    return MPI_SUCCESS;
}

/* Appends s to the request, escaping nothing: the separators \036 and
 * \037 may not occur in it (nor a newline). 0, or -1. */
static int append(char **buf, size_t *len, size_t *cap, const char *s, char sep)
{
    size_t n = strlen(s);
    if (strpbrk(s, "\036\037\n")) return -1;
    if (*len + n + 2 > *cap) {
        *cap = (*len + n + 2) * 2;
        char *b = realloc(*buf, *cap);
        if (!b) return -1;
        *buf = b;
    }
    if (sep && *len) (*buf)[(*len)++] = sep;
    memcpy(*buf + *len, s, n + 1);
    *len += n;
    return 0;
}

/* The info key "path" (MPI 4.1 section 11.8.4): directories, separated by
 * ':', where to look for a program given without a '/'. The first that
 * holds it as an executable file gives its absolute path (a relative
 * directory counts from this process's working directory); none leaves
 * the name as it is, for mpiexec to look up in its PATH. out has
 * PATH_MAX bytes. */
static const char *in_path(const char *prog, const char *path, char *out)
{
    if (!path || strchr(prog, '/')) return prog;
    for (const char *d = path; *d;) {
        size_t len = strcspn(d, ":");
        char cand[PATH_MAX];
        int n = snprintf(cand, sizeof cand, "%.*s/%s", (int)len, len ? d : ".", prog);
        struct stat st;
        if (n > 0 && (size_t)n < sizeof cand && stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
            access(cand, X_OK) == 0 && realpath(cand, out))
            return out;
        d += len + (d[len] == ':');
    }
    return prog;
}

/* The request: commands by \036, fields by \037 (np, wdir, program, args). */
static char *build_spec(int count, char **cmds, char ***argvs, const int *maxprocs, const MPI_Info *infos,
                        int *total, char *err)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;
    *total = 0;
    for (int i = 0; i < count; i++) {
        if (!cmds || !cmds[i] || !maxprocs || maxprocs[i] < 1) {
            snprintf(err, DMPI_DYN_ERRLEN, "command %d: no program, or maxprocs below 1", i);
            free(buf);
            return NULL;
        }
        char np[16], wdir[MPI_MAX_INFO_VAL + 1] = "";
        snprintf(np, sizeof np, "%d", maxprocs[i]);
        *total += maxprocs[i];
        dmpi_info *in = infos && infos[i] != MPI_INFO_NULL ? dmpi_info_get(infos[i]) : NULL;
        const char *w = in ? dmpi_info_lookup(in, "wdir") : NULL;
        if (w) snprintf(wdir, sizeof wdir, "%s", w);
        char found[PATH_MAX];
        const char *prog = in_path(cmds[i], in ? dmpi_info_lookup(in, "path") : NULL, found);
        int bad = (len && append(&buf, &len, &cap, "", '\036') != 0) || append(&buf, &len, &cap, np, 0) != 0 ||
                  append(&buf, &len, &cap, wdir, '\037') != 0 || append(&buf, &len, &cap, prog, '\037') != 0;
        /* the separator went in before an empty piece: len>0 always here */
        char **av = argvs ? argvs[i] : NULL;
        for (int k = 0; av && av[k] && !bad; k++) bad = append(&buf, &len, &cap, av[k], '\037') != 0;
        if (bad) {
            snprintf(err, DMPI_DYN_ERRLEN, "command %d: out of memory, or a program or argument holds a "
                     "newline or the bytes 036/037", i);
            free(buf);
            return NULL;
        }
    }
    if (len + 1 >= DMPI_PMI_VALLEN_MAX * 3) {
        snprintf(err, DMPI_DYN_ERRLEN, "the commands and arguments are too long for one spawn request");
        free(buf);
        return NULL;
    }
    return buf;
}

/* At the root: asks mpiexec. MPI_SUCCESS, or MPI_ERR_SPAWN with the reason. */
static int request(const char *spec, const char *port, char *err)
{
    const char *kv[] = {"parent_port", port, "spec", spec, NULL};
    char buf[1024];
    dmpi_pmi_msg m;
    int rc = dmpi_pmi_call("dmpi_spawn", kv, "dmpi_spawn_result", buf, sizeof buf, &m);
    if (rc == 0) return MPI_SUCCESS;
    snprintf(err, DMPI_DYN_ERRLEN, "mpiexec started nothing: %s", dmpi_pmi_error());
    return rc < 0 ? MPI_ERR_UNSUPPORTED_OPERATION : MPI_ERR_SPAWN;
}

int dmpi_dyn_spawn(int count, char **cmds, char ***argvs, const int *maxprocs, const MPI_Info *infos,
                   int root, dmpi_comm *comm, dmpi_comm **out, int *errcodes, int *nerr, char *err)
{
    *out = NULL;
    bool at_root = comm->rank == root;
    int total = 0, rc = MPI_SUCCESS;
    char port[MPI_MAX_PORT_NAME] = "";
    char *spec = NULL;
    if (at_root) {
        spec = build_spec(count, cmds, argvs, maxprocs, infos, &total, err);
        if (!spec) rc = MPI_ERR_SPAWN;
    }
    /* everyone learns how many were asked for (the error codes) */
    int r = dmpi_coll_bcast(&total, 1, dmpi_dt_builtin(MPI_INT), root, comm);
    if (r != MPI_SUCCESS) rc = r;
    *nerr = total;
    int orc = dmpi_dyn_open_all(comm, err);
    if (rc == MPI_SUCCESS) rc = orc;
    if (at_root && rc == MPI_SUCCESS) rc = dmpi_dyn_open_port(port, err);
    if (at_root && rc == MPI_SUCCESS) rc = request(spec, port, err);
    free(spec);
    rc = dmpi_dyn_agree(comm, root, rc, err);
    for (int i = 0; errcodes && i < total; i++) errcodes[i] = rc == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_SPAWN;
    if (rc == MPI_SUCCESS) rc = dmpi_dyn_accept(port, root, comm, out, err);
    if (at_root && port[0]) {
        char ignored[DMPI_DYN_ERRLEN];
        dmpi_dyn_close_port(port, ignored);
    }
    return rc;
}
