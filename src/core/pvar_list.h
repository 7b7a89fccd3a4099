/* The one table of dmpi's performance variables (MPI_T pvars): what the
 * library counts per process. core/pvar.h keeps the counters, the MPI_T
 * interface (api/mpit_pvar.c) describes them from here, in this order;
 * docs/mpit.md lists them.
 *
 * DMPI_PVAR(ID, "name", class, category, verbosity, "description")
 *   class: COUNTER (startable, writable, resettable, MPI_UNSIGNED_LONG_LONG),
 *          LEVEL or HIGHWATERMARK (continuous, read-only)
 *   category: one of DMPI_KNOB_CATEGORIES (core/knob_list.h) */
#define DMPI_PVAR_LIST                                                                           \
    DMPI_PVAR(EAGER_SHM, "dmpi_send_eager_shm", COUNTER, P2P, USER_BASIC,                        \
              "messages sent eagerly through the shared-memory rings to ranks of this node")     \
    DMPI_PVAR(EAGER_SHM_BYTES, "dmpi_send_eager_shm_bytes", COUNTER, P2P, USER_BASIC,            \
              "bytes of those messages")                                                         \
    DMPI_PVAR(RNDV_SHM, "dmpi_send_rndv_shm", COUNTER, P2P, USER_BASIC,                          \
              "messages sent to ranks of this node by rendezvous (RTS, then one copy by the "  \
              "receiver: CMA, or memcpy between shared-heap buffers)")                         \
    DMPI_PVAR(RNDV_SHM_BYTES, "dmpi_send_rndv_shm_bytes", COUNTER, P2P, USER_BASIC,              \
              "bytes of those messages")                                                         \
    DMPI_PVAR(OFFER_SHM, "dmpi_send_offer_shm", COUNTER, P2P, USER_DETAIL,                       \
              "messages the sender wrote straight into the receive buffer a receiver offered "  \
              "(receiver-first rendezvous)")                                                    \
    DMPI_PVAR(OFFER_SHM_BYTES, "dmpi_send_offer_shm_bytes", COUNTER, P2P, USER_DETAIL,           \
              "bytes of those messages")                                                         \
    DMPI_PVAR(EAGER_NET, "dmpi_send_eager_net", COUNTER, NET, USER_BASIC,                        \
              "messages sent eagerly to ranks of other nodes (libfabric)")                      \
    DMPI_PVAR(EAGER_NET_BYTES, "dmpi_send_eager_net_bytes", COUNTER, NET, USER_BASIC,            \
              "bytes of those messages")                                                         \
    DMPI_PVAR(RNDV_NET, "dmpi_send_rndv_net", COUNTER, NET, USER_BASIC,                          \
              "messages sent to ranks of other nodes by rendezvous (fi_read or fi_write)")      \
    DMPI_PVAR(RNDV_NET_BYTES, "dmpi_send_rndv_net_bytes", COUNTER, NET, USER_BASIC,              \
              "bytes of those messages")                                                         \
    DMPI_PVAR(SELF, "dmpi_send_self", COUNTER, P2P, USER_DETAIL,                                 \
              "messages a rank sent to itself")                                                 \
    DMPI_PVAR(SELF_BYTES, "dmpi_send_self_bytes", COUNTER, P2P, USER_DETAIL,                     \
              "bytes of those messages")                                                         \
    DMPI_PVAR(LATE_MOVED, "dmpi_late_moved", COUNTER, P2P, TUNER_DETAIL,                         \
              "sends whose data was moved aside because the receiver was late (DMPI_LATE_US)")  \
    DMPI_PVAR(RECV_OFFERS, "dmpi_recv_offers", COUNTER, P2P, TUNER_DETAIL,                       \
              "receives that offered their buffer to the sender (DMPI_OFFER_MIN)")             \
    DMPI_PVAR(COOP_COPIES, "dmpi_coop_copies", COUNTER, P2P, TUNER_DETAIL,                       \
              "rendezvous messages this rank received by a cooperative copy (DMPI_COOP_MIN)")  \
    DMPI_PVAR(COOP_HELPED, "dmpi_coop_chunks_helped", COUNTER, P2P, TUNER_DETAIL,                \
              "chunks this rank copied as the sender of a cooperative copy")                   \
    DMPI_PVAR(MATCH_POSTED, "dmpi_match_posted", COUNTER, P2P, TUNER_BASIC,                      \
              "arriving messages that found their receive posted")                              \
    DMPI_PVAR(MATCH_UNEXP, "dmpi_match_unexpected", COUNTER, P2P, TUNER_BASIC,                   \
              "receives (and matched probes) that found their message in the unexpected queue") \
    DMPI_PVAR(UNEXP_LEN, "dmpi_unexpected_queue", LEVEL, P2P, TUNER_BASIC,                       \
              "messages in the unexpected queue now")                                           \
    DMPI_PVAR(UNEXP_MAX, "dmpi_unexpected_queue_max", HIGHWATERMARK, P2P, TUNER_BASIC,           \
              "most messages the unexpected queue held at once")                                \
    DMPI_PVAR(COPY_HEAP, "dmpi_shm_copy_heap", COUNTER, SHM, TUNER_DETAIL,                       \
              "single copies with a rank of the node done by memcpy (the other buffer in the "  \
              "shared heap): rendezvous reads, offer writes, cooperative chunks, one-copy "     \
              "collectives")                                                                     \
    DMPI_PVAR(COPY_HEAP_BYTES, "dmpi_shm_copy_heap_bytes", COUNTER, SHM, TUNER_DETAIL,           \
              "bytes of those copies")                                                           \
    DMPI_PVAR(COPY_CMA, "dmpi_shm_copy_cma", COUNTER, SHM, TUNER_DETAIL,                         \
              "single copies with a rank of the node done by a system call (CMA: "             \
              "process_vm_readv / process_vm_writev)")                                          \
    DMPI_PVAR(COPY_CMA_BYTES, "dmpi_shm_copy_cma_bytes", COUNTER, SHM, TUNER_DETAIL,             \
              "bytes of those copies")                                                           \
    DMPI_PVAR(MR_HITS, "dmpi_ofi_mr_cache_hits", COUNTER, NET, TUNER_DETAIL,                     \
              "network memory registrations found in the cache (DMPI_OFI_MR_CACHE)")           \
    DMPI_PVAR(MR_MISSES, "dmpi_ofi_mr_cache_misses", COUNTER, NET, TUNER_DETAIL,                 \
              "network memory registrations made anew")                                         \
    DMPI_PVAR(MR_EVICTIONS, "dmpi_ofi_mr_cache_evictions", COUNTER, NET, TUNER_DETAIL,           \
              "idle registrations closed to keep the cache within its limit")
