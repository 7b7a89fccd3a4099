/* Single copies between this process and a peer on the node: a plain
 * memcpy when the peer's buffer lies in the shared heap (mapped at the same
 * address everywhere), else one process_vm_readv/writev (CMA). */
#include "core/dmpi.h"
#include "core/pvar.h"
#include "transport/shm/heap.h"
#include "transport/shm/shm.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>

void dmpi_copy_with_peer(bool from_peer, int peer, void *local, uint64_t remote, uint64_t n)
{
    if (n == 0) return;
    if (dmpi_heap_contains(remote, n) || peer == dmpi_shm.world_of[dmpi_shm.rank]) {
        dmpi_pv_msg(DMPI_PV_COPY_HEAP, n);
        if (from_peer) memcpy(local, (const void *)(uintptr_t)remote, n);
        else memcpy((void *)(uintptr_t)remote, local, n);
        return;
    }
    dmpi_pv_msg(DMPI_PV_COPY_CMA, n);
    for (uint64_t done = 0; done < n;) {
        struct iovec l = {(char *)local + done, n - done};
        struct iovec r = {(void *)(uintptr_t)(remote + done), n - done};
        ssize_t got = from_peer ? process_vm_readv(dmpi_shm.pids[peer], &l, 1, &r, 1, 0)
                                : process_vm_writev(dmpi_shm.pids[peer], &l, 1, &r, 1, 0);
        if (got <= 0) {
            if (got < 0 && errno == EINTR) continue;
            dmpi_protocol_error(peer, from_peer ? "single-copy read (process_vm_readv) failed"
                                                : "single-copy write (process_vm_writev) failed");
        }
        done += (uint64_t)got;
    }
}
