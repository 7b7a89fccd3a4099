/* Choosing each peer's transport (see transport.h): ranks that the
 * launcher put on this node get shm, ranks on other nodes the network
 * transport (ofi), this rank none. A job that spans nodes in a build
 * without libfabric fails here with a message that says so. */
#include "transport/transport.h"
#include "transport/shm/shm.h"

#include "core/dmpi.h"

#include "pmi/pmi.h"
#include "pmi/pmi_wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

dmpi_tp_state dmpi_tp;

/* The shm channel is inline in transport.h; its large-message primitives
 * (dmpi_copy_with_peer, the offer and coop slots) are in shm.h. */
const dmpi_tp_ops dmpi_tp_shm_ops = {
    .name = "shm",
    .kind = DMPI_TP_SHM,
    .shared_slots = true,
};

int dmpi_tp_init(int me, int nprocs, int job_lo, int job_n, int *node_of)
{
    dmpi_tp.me = me;
    dmpi_tp.nprocs = nprocs;
    dmpi_tp.job_lo = job_lo;
    dmpi_tp.job_hi = job_lo + job_n;
    dmpi_tp.out = calloc((size_t)nprocs, sizeof(dmpi_ring));
    dmpi_tp.in = calloc((size_t)nprocs, sizeof(dmpi_ring));
    dmpi_tp.ops = calloc((size_t)nprocs, sizeof(dmpi_tp_ops *));
    dmpi_tp.shm_peers = malloc((size_t)nprocs * sizeof(int));
    int *local = malloc((size_t)nprocs * sizeof(int));
    if (!dmpi_tp.out || !dmpi_tp.in || !dmpi_tp.ops || !dmpi_tp.shm_peers || !local) {
        fprintf(stderr, "dmpi: rank %d: out of memory choosing transports\n", me);
        free(local);
        return -1;
    }
    int nlocal = 0, my_local = 0;
    for (int w = job_lo; w < job_lo + job_n; w++) {
        if (node_of[w] != node_of[me]) {
            dmpi_tp.nnet++;
            continue;
        }
        if (w == me) my_local = nlocal;
        else dmpi_tp.shm_peers[dmpi_tp.nshm++] = w;
        local[nlocal++] = w;
    }
    /* Every rank takes part: the segment's set-up has global PMI fences. */
    int rc = job_n > 1 ? dmpi_shm_init(my_local, nlocal, local, node_of[me]) : 0;
    free(local);
    if (rc != 0) return -1;
    for (int i = 0; i < dmpi_tp.nshm; i++) dmpi_tp.ops[dmpi_tp.shm_peers[i]] = &dmpi_tp_shm_ops;
    if (dmpi_tp.nnet == 0) return 0;
    dmpi_tp.net = dmpi_ofi_open(me, nprocs, node_of);
    if (!dmpi_tp.net) return -1;
    for (int w = job_lo; w < job_lo + job_n; w++)
        if (node_of[w] != node_of[me]) dmpi_tp.ops[w] = dmpi_tp.net;
    return 0;
}

/* ------------------------------------------------------------ universe
 * Key "dmpi-u-<index>" of the universe key space (mpiexec's spawn.c):
 * "<node>:<address in hex>". */
int dmpi_tp_universe_open(char *err, int errlen)
{
    if (dmpi_tp.uni_open) return 0;
    if (!dmpi_tp.net) {
        const dmpi_tp_ops *net = dmpi_ofi_open_alone(dmpi_tp.me, dmpi_tp.nprocs, err, errlen);
        if (!net) return -1;
        dmpi_tp.net = net;
    }
    char key[32], val[1100];
    int n = snprintf(val, sizeof val, "%d:", dmpi_rt.node_id);
    if (dmpi_ofi_uni_name(val + n, (int)sizeof val - n) != 0) {
        snprintf(err, (size_t)errlen, "cannot read this process's network address");
        return -1;
    }
    snprintf(key, sizeof key, "dmpi-u-%d", dmpi_tp.me);
    const char *kv[] = {"key", key, "value", val, NULL};
    char buf[256];
    dmpi_pmi_msg m;
    if (dmpi_pmi_call("dmpi_uput", kv, "dmpi_uput_result", buf, sizeof buf, &m) != 0) {
        snprintf(err, (size_t)errlen, "%s", dmpi_pmi_error());
        return -1;
    }
    dmpi_tp.uni_open = true;
    return 0;
}

int dmpi_tp_connect(int peer, double wait_s, char *err, int errlen)
{
    if (peer < 0 || peer >= dmpi_tp.nprocs) {
        snprintf(err, (size_t)errlen, "process %d is outside the universe (size %d)", peer, dmpi_tp.nprocs);
        return -1;
    }
    if (peer == dmpi_tp.me || dmpi_tp.ops[peer]) return 0;
    if (dmpi_tp_universe_open(err, errlen) != 0) return -1;
    char key[32], buf[DMPI_PMI_MAXLINE];
    snprintf(key, sizeof key, "dmpi-u-%d", peer);
    const char *kv[] = {"key", key, NULL};
    dmpi_pmi_msg m;
    double until = dmpi_now() + wait_s;
    unsigned nap = 200;
    for (;;) {
        int rc = dmpi_pmi_call("dmpi_uget", kv, "dmpi_uget_result", buf, sizeof buf, &m);
        if (rc < 0) {
            snprintf(err, (size_t)errlen, "%s", dmpi_pmi_error());
            return -1;
        }
        if (rc == 0) break;
        if (dmpi_now() >= until) {
            snprintf(err, (size_t)errlen, "process %d of the universe has no published address%s", peer,
                     wait_s > 0 ? " (waited DMPI_CONNECT_TIMEOUT seconds)" : "");
            return -1;
        }
        usleep(nap);
        if (nap < 20000) nap *= 2;
    }
    const char *v = dmpi_pmi_msg_str(&m, "value");
    char *colon = v ? strchr(v, ':') : NULL;
    if (!colon || dmpi_ofi_uni_insert(peer, colon + 1) != 0) {
        snprintf(err, (size_t)errlen, "process %d published an address the network transport cannot use", peer);
        return -1;
    }
    dmpi_rt.node_of[peer] = atoi(v);
    dmpi_tp.ops[peer] = dmpi_tp.net;
    return 0;
}

int dmpi_tp_alias(int alias, const char *hex, int node, int as_seen, char *err, int errlen)
{
    if (alias < 0 || alias >= dmpi_tp.nprocs || alias == dmpi_tp.me || dmpi_tp.ops[alias]) {
        snprintf(err, (size_t)errlen, "index %d cannot stand for a process of another mpiexec", alias);
        return -1;
    }
    if (dmpi_tp_universe_open(err, errlen) != 0) return -1;
    if (dmpi_ofi_uni_insert(alias, hex) != 0) {
        snprintf(err, (size_t)errlen, "a process of the other mpiexec has an address the network "
                 "transport cannot use (FI_PROVIDER must be the same in both runs)");
        return -1;
    }
    dmpi_ofi_src_id(alias, as_seen);
    dmpi_rt.node_of[alias] = node;
    dmpi_tp.ops[alias] = dmpi_tp.net;
    return 0;
}

void dmpi_tp_memory_released(const void *p, uint64_t n)
{
    if (dmpi_tp.net && dmpi_tp.net->invalidate) dmpi_tp.net->invalidate(p, n);
}

int dmpi_tp_dead_peer(void)
{
    int dead = dmpi_shm_dead_peer();
    if (dead < 0 && dmpi_tp.net && dmpi_tp.net->dead_peer) dead = dmpi_tp.net->dead_peer();
    return dead;
}

void dmpi_tp_finalize(void)
{
    if (dmpi_tp.net) dmpi_tp.net->finalize();
    dmpi_shm_finalize();
    free(dmpi_tp.out);
    free(dmpi_tp.in);
    free(dmpi_tp.ops);
    free(dmpi_tp.shm_peers);
    dmpi_tp = (dmpi_tp_state){0};
}
