/* The libfabric transport's memory-registration cache. A rendezvous
 * exposes the sender's buffer (and, where the provider wants local
 * registrations, the receiver's) through a registration looked up here by
 * address range: a registration whose page-rounded range covers the
 * request is reused (a hit), else a new one is made (a miss). Entries in
 * use are counted; idle ones stay for reuse, at most DMPI_OFI_MR_CACHE of
 * them, the least recently used going first.
 *
 * Keeping it correct when memory goes away: dmpi_ofi_mr_invalidate drops
 * every entry that overlaps a range (MPI_Free_mem calls it through
 * dmpi_tp_memory_released); an entry still in use is closed when its last
 * user lets go. Memory that the program frees or unmaps by itself is not
 * seen here, so idle entries are kept only for the sockets providers
 * (tcp, sockets, udp), whose registrations pin nothing and name virtual
 * addresses of this process: there a stale entry still reads whatever
 * that address holds now, which is what the program gave. For any other
 * provider idle entries are closed at once until a memory monitor exists
 * (docs/network.md). */
#include "transport/ofi/ofi.h"

#include "core/dmpi.h"
#include "core/pvar.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ALL_ACCESS (FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE | FI_SEND | FI_RECV)

static long cache_limit(void)
{
    static long limit = -1;
    if (limit < 0) {
        limit = dmpi_knob(DMPI_KNOB_OFI_MR_CACHE);
        const char *prov = dmpi_ofi.info->fabric_attr->prov_name;
        bool software = prov && (strstr(prov, "tcp") == prov || strstr(prov, "sockets") == prov ||
                                 strstr(prov, "udp") == prov);
        if ((dmpi_ofi.mr_mode & FI_MR_LOCAL) || !software) limit = 0;
        if (limit < 0) limit = 0;
    }
    return limit;
}

static void close_entry(ofi_mr *m)
{
    fi_close(&m->mr->fid);
    free(m);
}

static void unlink_entry(ofi_mr *m)
{
    for (ofi_mr **pp = &dmpi_ofi.mrs; *pp; pp = &(*pp)->next) {
        if (*pp == m) {
            *pp = m->next;
            dmpi_ofi.nmrs--;
            return;
        }
    }
}

/* Closes idle entries, least recently used first, until at most `keep`
 * idle ones are left. */
static void trim(long keep)
{
    for (;;) {
        long idle = 0;
        ofi_mr *oldest = NULL;
        for (ofi_mr *m = dmpi_ofi.mrs; m; m = m->next) {
            if (m->refs) continue;
            idle++;
            if (!oldest || m->last_use < oldest->last_use) oldest = m;
        }
        if (idle <= keep || !oldest) return;
        unlink_entry(oldest);
        close_entry(oldest);
        dmpi_pv_add(DMPI_PV_MR_EVICTIONS, 1);
    }
}

ofi_mr *dmpi_ofi_mr_get(const void *p, uint64_t n, uint64_t access)
{
    ofi_state *o = &dmpi_ofi;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)p & ~(page - 1);
    uintptr_t hi = ((uintptr_t)p + (uintptr_t)(n ? n : 1) + page - 1) & ~(page - 1);
    for (ofi_mr *m = o->mrs; m; m = m->next) {
        if (m->lo <= lo && m->hi >= hi && (m->access & access) == access) {
            m->refs++;
            m->last_use = ++o->mr_clock;
            dmpi_pv_add(DMPI_PV_MR_HITS, 1);
            return m;
        }
    }
    dmpi_pv_add(DMPI_PV_MR_MISSES, 1);
    ofi_mr *m = calloc(1, sizeof *m);
    if (!m) dmpi_abort_job(1, "dmpi: rank %d: out of memory registering memory", o->me);
    m->lo = lo;
    m->hi = hi;
    m->access = ALL_ACCESS;
    int rc = fi_mr_reg(o->domain, (void *)lo, hi - lo, m->access, 0, ++o->next_key, 0, &m->mr,
                       NULL);
    if (rc == 0 && (o->mr_mode & FI_MR_ENDPOINT)) {
        rc = fi_mr_bind(m->mr, &o->ep->fid, 0);
        if (rc == 0) rc = fi_mr_enable(m->mr);
    }
    if (rc != 0) dmpi_ofi_fail("memory registration", rc);
    m->refs = 1;
    m->last_use = ++o->mr_clock;
    m->next = o->mrs;
    o->mrs = m;
    o->nmrs++;
    trim(cache_limit());
    return m;
}

void dmpi_ofi_mr_put(ofi_mr *m)
{
    if (--m->refs > 0) return;
    if (m->access == 0) { /* invalidated while in use */
        close_entry(m);
        return;
    }
    trim(cache_limit());
}

void dmpi_ofi_mr_invalidate(const void *p, uint64_t n)
{
    uintptr_t lo = (uintptr_t)p, hi = lo + (uintptr_t)n;
    ofi_mr **pp = &dmpi_ofi.mrs;
    while (*pp) {
        ofi_mr *m = *pp;
        if (m->lo >= hi || m->hi <= lo) {
            pp = &m->next;
            continue;
        }
        *pp = m->next;
        dmpi_ofi.nmrs--;
        if (m->refs) m->access = 0; /* closed by the last put */
        else close_entry(m);
    }
}

void dmpi_ofi_mr_finalize(void)
{
    while (dmpi_ofi.mrs) {
        ofi_mr *m = dmpi_ofi.mrs;
        dmpi_ofi.mrs = m->next;
        close_entry(m);
    }
    dmpi_ofi.nmrs = 0;
}

int dmpi_ofi_expose(int peer, const void *buf, uint64_t n, dmpi_rts_info *info, void **handle)
{
    (void)peer;
    ofi_mr *m = dmpi_ofi_mr_get(buf, n, FI_REMOTE_READ);
    info->addr = (dmpi_ofi.mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)buf
                                                      : (uint64_t)((uintptr_t)buf - m->lo);
    info->key = fi_mr_key(m->mr);
    *handle = m;
    return 0;
}

void dmpi_ofi_unexpose(void *handle) { dmpi_ofi_mr_put(handle); }
