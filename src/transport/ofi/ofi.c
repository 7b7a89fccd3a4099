/* The libfabric transport: opening it. Picks a provider (FI_PROVIDER when
 * set, else the first that offers reliable datagram endpoints with tagged
 * messages, remote reads and ordered sends and can reach other hosts, with
 * TCP's native provider preferred to rxm over tcp),
 * opens one endpoint, publishes its address through PMI and inserts every
 * other rank's into the address vector. The interface may be named with
 * DMPI_OFI_IFACE (mpiexec -iface sets it). Packet movement is in
 * ofi_io.c; docs/network.md says how it all fits. */
#include "transport/ofi/ofi.h"

#include "core/dmpi.h"
#include "core/pvar.h"
#include "pmi/pmi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ofi_state dmpi_ofi;

_Noreturn void dmpi_ofi_fail(const char *what, int rc)
{
    dmpi_abort_job(1, "dmpi: rank %d: libfabric %s failed: %s", dmpi_ofi.me, what,
                   fi_strerror(rc < 0 ? -rc : rc));
}

static struct fi_info *make_hints(void)
{
    struct fi_info *h = dmpi_fi_allocinfo();
    if (!h) return NULL;
    h->caps = FI_TAGGED | FI_RMA | FI_READ | FI_REMOTE_READ | FI_WRITE | FI_REMOTE_WRITE;
    h->mode = FI_CONTEXT;
    h->ep_attr->type = FI_EP_RDM;
    h->tx_attr->msg_order = FI_ORDER_SAS;
    h->rx_attr->msg_order = FI_ORDER_SAS;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY |
                              FI_MR_ENDPOINT;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    h->domain_attr->control_progress = FI_PROGRESS_MANUAL;
    h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    return h;
}

static const char *prov_of(const struct fi_info *i)
{
    return i->fabric_attr && i->fabric_attr->prov_name ? i->fabric_attr->prov_name : "";
}

/* Loopback and link-local interfaces cannot reach other hosts. */
static bool reaches_other_hosts(const struct fi_info *i)
{
    const char *f = i->fabric_attr && i->fabric_attr->name ? i->fabric_attr->name : "";
    const char *prov = prov_of(i);
    if (strstr(prov, "shm") == prov || strstr(prov, "sm2") == prov) return false;
    return strncmp(f, "127.", 4) != 0 && strcmp(f, "::1/128") != 0 && strncmp(f, "fe80:", 5) != 0;
}

static bool names_iface(const struct fi_info *i, const char *iface)
{
    return i->domain_attr && i->domain_attr->name && strcmp(i->domain_attr->name, iface) == 0;
}

static bool same_string(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* Over plain TCP, libfabric lists the rxm layer over its connected tcp
 * endpoints first. The providers that speak reliable datagrams over TCP
 * themselves ("net" in libfabric 1.17, renamed "tcp" from 1.18) skip that
 * layer, its internal pipe and its extra polls: 8 B half round trip
 * between two nodes 8.1-9.6 -> 5.1-5.2 us on one VM (docs/network.md).
 * So when the pick is rxm over tcp and FI_PROVIDER chose nothing, the
 * native provider on the same interface is taken instead. Other fabrics
 * (verbs, efa, cxi, psm3) are never replaced. */
static struct fi_info *prefer_native_tcp(struct fi_info *all, struct fi_info *pick)
{
    if (!pick || getenv("FI_PROVIDER") || strcmp(prov_of(pick), "tcp;ofi_rxm") != 0) return pick;
    for (struct fi_info *i = all; i; i = i->next) {
        const char *p = prov_of(i);
        if ((strcmp(p, "net") == 0 || strcmp(p, "tcp") == 0) && i->domain_attr && pick->domain_attr &&
            same_string(i->domain_attr->name, pick->domain_attr->name) &&
            same_string(i->fabric_attr->name, pick->fabric_attr->name))
            return i;
    }
    return pick;
}

static struct fi_info *choose_any(struct fi_info *all)
{
    char kb[DMPI_KNOB_STR_MAX];
    const char *iface = dmpi_knob_str(DMPI_KNOB_OFI_IFACE, kb);
    if (iface) {
        for (struct fi_info *i = all; i; i = i->next)
            if (names_iface(i, iface)) return i;
        return NULL;
    }
    /* Prefer IPv4 (and non-IP fabrics) over IPv6 for the sockets providers. */
    for (struct fi_info *i = all; i; i = i->next)
        if (reaches_other_hosts(i) && !strchr(i->fabric_attr->name ? i->fabric_attr->name : "", ':'))
            return i;
    for (struct fi_info *i = all; i; i = i->next)
        if (reaches_other_hosts(i)) return i;
    return NULL;
}

static struct fi_info *choose(struct fi_info *all)
{
    return prefer_native_tcp(all, choose_any(all));
}

static int open_endpoint(struct fi_info *i)
{
    ofi_state *o = &dmpi_ofi;
    int rc;
    if ((rc = fi_fabric(i->fabric_attr, &o->fabric, NULL)) != 0) return rc;
    if ((rc = fi_domain(o->fabric, i, &o->domain, NULL)) != 0) return rc;
    /* A completion queue a rank can sleep on; without one, polling. */
    struct fi_cq_attr cqa = {.format = FI_CQ_FORMAT_TAGGED, .wait_obj = FI_WAIT_UNSPEC,
                             .size = 4096};
    o->cq_waits = fi_cq_open(o->domain, &cqa, &o->cq, NULL) == 0;
    if (!o->cq_waits) {
        cqa.wait_obj = FI_WAIT_NONE;
        if ((rc = fi_cq_open(o->domain, &cqa, &o->cq, NULL)) != 0) return rc;
    }
    struct fi_av_attr ava = {.type = FI_AV_TABLE, .count = (size_t)o->nprocs};
    if ((rc = fi_av_open(o->domain, &ava, &o->av, NULL)) != 0) return rc;
    if ((rc = fi_endpoint(o->domain, i, &o->ep, NULL)) != 0) return rc;
    if ((rc = fi_ep_bind(o->ep, &o->cq->fid, FI_TRANSMIT | FI_RECV)) != 0) return rc;
    if ((rc = fi_ep_bind(o->ep, &o->av->fid, 0)) != 0) return rc;
    return fi_enable(o->ep);
}

static void to_hex(const unsigned char *b, size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t k = 0; k < n; k++) {
        out[2 * k] = hex[b[k] >> 4];
        out[2 * k + 1] = hex[b[k] & 15];
    }
    out[2 * n] = '\0';
}

static int from_hex(const char *s, unsigned char *b, size_t cap)
{
    size_t n = strlen(s);
    if (n % 2 || n / 2 > cap) return -1;
    for (size_t k = 0; k < n / 2; k++) {
        unsigned v;
        if (sscanf(s + 2 * k, "%2x", &v) != 1) return -1;
        b[k] = (unsigned char)v;
    }
    return (int)(n / 2);
}

/* Every rank publishes its endpoint address; each rank inserts those of
 * the ranks on other nodes (fi_addr per world rank). */
static int exchange_addresses(const int *node_of)
{
    ofi_state *o = &dmpi_ofi;
    unsigned char name[512];
    size_t len = sizeof name;
    int rc = fi_getname(&o->ep->fid, name, &len);
    if (rc != 0) return rc;
    char key[32], val[2 * sizeof name + 1];
    to_hex(name, len, val);
    snprintf(key, sizeof key, "dmpi-ofi-%d", o->me);
    if (dmpi_pmi_put(key, val) != 0) return -FI_EIO;
    int lo = dmpi_tp.job_lo, n = dmpi_tp.job_hi - lo; /* the watch counts this job's ranks */
    dmpi_ofi_watch_publish(o->me - lo, node_of + lo);
    if (dmpi_pmi_barrier() != 0) return -FI_EIO;
    o->addr = calloc((size_t)o->nprocs, sizeof(fi_addr_t));
    if (!o->addr) return -FI_ENOMEM;
    for (int w = 0; w < o->nprocs; w++) o->addr[w] = FI_ADDR_NOTAVAIL;
    for (int w = dmpi_tp.job_lo; w < dmpi_tp.job_hi; w++) { /* this job's; others on connect */
        if (node_of[w] == node_of[o->me]) continue;
        snprintf(key, sizeof key, "dmpi-ofi-%d", w);
        int n;
        if (dmpi_pmi_get(w, key, val, sizeof val) != 0 || (n = from_hex(val, name, sizeof name)) <= 0)
            return -FI_EADDRNOTAVAIL;
        if (fi_av_insert(o->av, name, 1, &o->addr[w], 0, NULL) != 1) return -FI_EADDRNOTAVAIL;
    }
    dmpi_ofi_watch_connect(o->me - lo, n, node_of + lo);
    return 0;
}

static void ofi_finalize(void);

static const dmpi_tp_ops ofi_ops = {
    .name = "ofi",
    .kind = DMPI_TP_OFI,
    .shared_slots = false,
    .reserve = dmpi_ofi_reserve,
    .publish = dmpi_ofi_publish,
    .expose = dmpi_ofi_expose,
    .unexpose = dmpi_ofi_unexpose,
    .read = dmpi_ofi_read,
    .write = dmpi_ofi_write,
    .progress = dmpi_ofi_progress,
    .wait = dmpi_ofi_wait,
    .arrive_finalize = dmpi_ofi_arrive_finalize,
    .all_finalized = dmpi_ofi_all_finalized,
    .finalize = ofi_finalize,
    .invalidate = dmpi_ofi_mr_invalidate,
    .dead_peer = dmpi_ofi_watch_dead,
};
static dmpi_tp_ops ofi_ops_tuned;

/* Opens the endpoint and the packet machinery; exchanges addresses with
 * the job's other nodes when node_of is given. */
static const dmpi_tp_ops *open_net(int me, int nprocs, const int *node_of);

const dmpi_tp_ops *dmpi_ofi_open(int me, int nprocs, const int *node_of)
{
    for (int w = dmpi_tp.job_lo; w < dmpi_tp.job_hi; w++) dmpi_ofi.nremote += node_of[w] != node_of[me];
    return open_net(me, nprocs, node_of);
}

/* Dynamic processes: the job lies on one node, and another job's process
 * is to be reached. No job-wide exchange (only some ranks call this). */
const dmpi_tp_ops *dmpi_ofi_open_alone(int me, int nprocs, char *err, int errlen)
{
    dmpi_ofi.nremote = 0;
    const dmpi_tp_ops *t = open_net(me, nprocs, NULL);
    if (!t) snprintf(err, (size_t)errlen, "cannot open the network transport (libfabric), which "
                     "carries the traffic between jobs: see the messages above");
    return t;
}

int dmpi_ofi_uni_name(char *hex, int cap)
{
    unsigned char name[512];
    size_t len = sizeof name;
    if (!dmpi_ofi.ep || fi_getname(&dmpi_ofi.ep->fid, name, &len) != 0 || (int)(2 * len + 1) > cap) return -1;
    to_hex(name, len, hex);
    return 0;
}

int dmpi_ofi_uni_insert(int peer, const char *hex)
{
    unsigned char name[512];
    int n = from_hex(hex, name, sizeof name);
    if (n <= 0 || !dmpi_ofi.av) return -1;
    return fi_av_insert(dmpi_ofi.av, name, 1, &dmpi_ofi.addr[peer], 0, NULL) == 1 ? 0 : -1;
}

static const dmpi_tp_ops *open_net(int me, int nprocs, const int *node_of)
{
    ofi_state *o = &dmpi_ofi;
    o->me = me;
    o->nprocs = nprocs;
    /* rxm sends a message eagerly up to its buffer size (16 KiB unless
     * told): make it hold our largest packet, so that a packet is one
     * transfer and not rxm's own rendezvous under ours (2 ranks on two
     * test hosts, 64 KiB ping-pong 40-70 -> 27-50 us). Set before the
     * providers start; a value the user gave wins. */
    char rxm_buf[32];
    snprintf(rxm_buf, sizeof rxm_buf, "%ld",
             DMPI_CELL + dmpi_knob(DMPI_KNOB_OFI_FRAG_MAX) + 64);
    setenv("FI_OFI_RXM_BUFFER_SIZE", rxm_buf, 0);
    char why[300];
    if (dmpi_ofi_load(why, sizeof why) != 0) {
        fprintf(stderr, "dmpi: rank %d: this job spans nodes but %s\n", me, why);
        return NULL;
    }
    struct fi_info *hints = make_hints(), *all = NULL;
    if (!hints) return NULL;
    int rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &all);
    fi_freeinfo(hints);
    char kb[DMPI_KNOB_STR_MAX];
    const char *iface = dmpi_knob_str(DMPI_KNOB_OFI_IFACE, kb);
    struct fi_info *pick = rc == 0 ? choose(all) : NULL;
    if (!pick) {
        fprintf(stderr,
                "dmpi: rank %d: no libfabric provider offers what a job across hosts needs "
                "(reliable datagram endpoints, tagged messages, remote read, ordered sends)%s%s%s%s\n",
                me, getenv("FI_PROVIDER") ? " with FI_PROVIDER=" : "",
                getenv("FI_PROVIDER") ? getenv("FI_PROVIDER") : "",
                iface && *iface ? " on interface " : "", iface && *iface ? iface : "");
        if (all) fi_freeinfo(all);
        return NULL;
    }
    o->info = fi_dupinfo(pick);
    fi_freeinfo(all);
    o->mr_mode = (uint64_t)o->info->domain_attr->mr_mode;
    o->inject_max = o->info->tx_attr->inject_size;
    o->msg_max = o->info->ep_attr->max_msg_size;
    rc = open_endpoint(o->info);
    if (rc == 0 && node_of) rc = exchange_addresses(node_of);
    if (rc == 0 && !node_of) {
        o->addr = malloc((size_t)nprocs * sizeof(fi_addr_t));
        if (!o->addr) rc = -FI_ENOMEM;
        for (int w = 0; rc == 0 && w < nprocs; w++) o->addr[w] = FI_ADDR_NOTAVAIL;
    }
    if (rc == 0) {
        ofi_ops_tuned = ofi_ops;
        /* Receiver-first offers need a packet sent after a write to land
         * after it (FI_ORDER_SAW); DMPI_OFI_RTR=0 turns them off. */
        ofi_ops_tuned.write_then_send = (o->info->tx_attr->msg_order & FI_ORDER_SAW) != 0;
        ofi_ops_tuned.push_by_write = ofi_ops_tuned.write_then_send &&
                                      dmpi_knob(DMPI_KNOB_OFI_RTR);
        ofi_ops_tuned.eager_max = (uint64_t)dmpi_knob(DMPI_KNOB_OFI_EAGER_MAX);
        ofi_ops_tuned.frag_max = (uint64_t)dmpi_knob(DMPI_KNOB_OFI_FRAG_MAX);
        if (ofi_ops_tuned.frag_max < 4096) ofi_ops_tuned.frag_max = 4096;
        uint64_t cell_cap = DMPI_INLINE_BYTES + (uint64_t)(UINT16_MAX - 1) * DMPI_CELL;
        if (ofi_ops_tuned.frag_max > cell_cap) ofi_ops_tuned.frag_max = cell_cap; /* 16-bit cell count */
        if (ofi_ops_tuned.frag_max > o->msg_max - DMPI_CELL) ofi_ops_tuned.frag_max = o->msg_max - DMPI_CELL;
        o->buf_bytes = DMPI_CELL + ofi_ops_tuned.frag_max;
        rc = dmpi_ofi_io_init();
    }
    /* After a wire-up no rank sends anything else before every
     * connection is made. */
    if (rc == 0 && node_of && dmpi_ofi_contact_wireup(node_of) && dmpi_pmi_barrier() != 0) rc = -FI_EIO;
    if (rc != 0) {
        fprintf(stderr, "dmpi: rank %d: cannot open libfabric provider %s on %s: %s\n", me,
                o->info->fabric_attr->prov_name, o->info->domain_attr->name, fi_strerror(-rc));
        return NULL;
    }
    if (dmpi_knob(DMPI_KNOB_OFI_VERBOSE) && me == 0)
        fprintf(stderr, "dmpi: network: libfabric %s on %s (%s), eager up to %llu bytes, %s progress, "
                "%s\n", o->info->fabric_attr->prov_name, o->info->domain_attr->name,
                o->info->fabric_attr->name, (unsigned long long)ofi_ops_tuned.eager_max,
                o->info->domain_attr->data_progress == FI_PROGRESS_AUTO ? "automatic" : "manual",
                o->cq_waits ? "completion queue with a wait object" : "completion queue polled only");
    return &ofi_ops_tuned;
}

static void ofi_finalize(void)
{
    ofi_state *o = &dmpi_ofi;
    dmpi_ofi_watch_close();
    if (o->ep) fi_close(&o->ep->fid);
    o->ep = NULL;
    dmpi_ofi_io_finalize();
    dmpi_ofi_mr_finalize();
    if (dmpi_knob(DMPI_KNOB_OFI_STATS))
        fprintf(stderr,
                "dmpi: rank %d: network: %llu rendezvous reads (sender first), %llu writes "
                "(receiver first), %ld operations posted again, %ld packets resent unacknowledged; "
                "registration cache: %llu hits, %llu misses, %llu evicted\n",
                o->me, (unsigned long long)o->reads, (unsigned long long)o->writes, o->retries, o->resent,
                (unsigned long long)dmpi_pv_get(DMPI_PV_MR_HITS),
                (unsigned long long)dmpi_pv_get(DMPI_PV_MR_MISSES),
                (unsigned long long)dmpi_pv_get(DMPI_PV_MR_EVICTIONS));
    if (o->av) fi_close(&o->av->fid);
    if (o->cq) fi_close(&o->cq->fid);
    if (o->domain) fi_close(&o->domain->fid);
    if (o->fabric) fi_close(&o->fabric->fid);
    if (o->info) fi_freeinfo(o->info);
    free(o->addr);
    memset(o, 0, sizeof *o);
}
