/* The one table of dmpi's DMPI_* environment knobs: name, type, default,
 * category, verbosity, scope, when an MPI_T write can still take effect,
 * and a one-line description. core/knob.c reads the knobs through it
 * (environment, or a value written with MPI_T_cvar_write), and the MPI_T
 * control variables (api/mpit_cvar.c) are these entries, in this order.
 * docs/environment.md explains each knob at length; docs/mpit.md lists
 * the control variables.
 *
 * DMPI_KNOB(ID, "name of the variable", type, default, "default text", category,
 *           verbosity, scope, when, "description")
 *   type:  INT (MPI_INT), BOOL (MPI_INT, enum off/on), ENUM_BIND /
 *          ENUM_PMI / ENUM_LAUNCHER (MPI_INT with that enumeration; the
 *          environment may give the item's name), STR (MPI_CHAR)
 *   when:  INIT  writable until dmpi first reads it (at MPI_Init or first
 *                use), then MPI_T_ERR_CVAR_SET_NEVER
 *          LIVE  writable at any time; takes effect at once
 *          NEVER read by mpiexec, not by the library: never writable
 *   "default text" is what docs/environment.md gives when the default
 *   depends on the run (the numeric default is then the usual value). */

/* DMPI_KNOB_CAT(ID, "name", "description") */
#define DMPI_KNOB_CATEGORIES                                                                     \
    DMPI_KNOB_CAT(P2P, "dmpi_p2p",                                                               \
                  "point-to-point protocols: eager and rendezvous limits, receiver offers, "     \
                  "cooperative copies, late receivers, matching")                                \
    DMPI_KNOB_CAT(SHM, "dmpi_shm", "the shared-memory transport: rings, shared heap, CMA")       \
    DMPI_KNOB_CAT(WAIT, "dmpi_wait", "waiting: spinning, yielding, sleeping, binding, preemption") \
    DMPI_KNOB_CAT(NET, "dmpi_net", "traffic between nodes (libfabric) and RMA across nodes")     \
    DMPI_KNOB_CAT(COLL, "dmpi_coll", "collective algorithms")                                    \
    DMPI_KNOB_CAT(LAUNCH, "dmpi_launch", "the launcher: PMI, process mapping, peer watch")       \
    DMPI_KNOB_CAT(ACCEL, "dmpi_accel", "memory-kind backends (GPUs)")                          \
    DMPI_KNOB_CAT(IO, "dmpi_io", "MPI-IO: staging of noncontiguous buffers, two-phase collective I/O")

#define DMPI_KNOB_COLL_ALGO(N, NAME)                                                             \
    DMPI_KNOB(COLL_##N##_ALGO, NAME, STR, 0, "auto", COLL, TUNER_DETAIL,      \
              ALL_EQ, LIVE,                                                                       \
              "force the " #N " algorithm (a name from src/coll/tuning.c, or auto); every "     \
              "rank must write the same value between the same collectives")

#define DMPI_KNOB_LIST                                                                           \
    DMPI_KNOB(EAGER_MAX, "DMPI_EAGER_MAX", INT, 32768, "", P2P, TUNER_BASIC, LOCAL, INIT,        \
              "messages larger than this use rendezvous (single copy) within a node")            \
    DMPI_KNOB(HEAP_EAGER_MAX, "DMPI_HEAP_EAGER_MAX", INT, 8192, "", P2P, TUNER_DETAIL, LOCAL,    \
              INIT, "rendezvous limit for send buffers in the shared heap")                     \
    DMPI_KNOB(FRAG_MAX, "DMPI_FRAG_MAX", INT, 4096, "4096 (at most ring bytes / 4)", SHM,        \
              TUNER_DETAIL, LOCAL, INIT, "largest payload of one ring packet")                  \
    DMPI_KNOB(OFFER_MIN, "DMPI_OFFER_MIN", INT, 32768, "DMPI_EAGER_MAX", P2P, TUNER_DETAIL,      \
              LOCAL, INIT, "receives at least this large, posted early, offer their buffer")    \
    DMPI_KNOB(COOP_MIN, "DMPI_COOP_MIN", INT, 262144, "", P2P, TUNER_DETAIL, LOCAL, INIT,        \
              "rendezvous messages at least this large are copied by both sides; 0: off")       \
    DMPI_KNOB(PART_SPLIT_MIN, "DMPI_PART_SPLIT_MIN", INT, 32768, "", P2P, TUNER_DETAIL, LOCAL,   \
              INIT, "partitioned sends with partitions this large send each when ready")       \
    DMPI_KNOB(COOP_CHUNK, "DMPI_COOP_CHUNK", INT, 131072, "", P2P, TUNER_DETAIL, LOCAL, INIT,    \
              "chunk size of the cooperative copy (at least 4096)")                             \
    DMPI_KNOB(SHM_HEAP_MB, "DMPI_SHM_HEAP_MB", INT, 1024, "", SHM, TUNER_BASIC, ALL_EQ, INIT,    \
              "MiB of the node-wide shared heap (cut to half the free /dev/shm); 0: off")       \
    DMPI_KNOB(SHM_MALLOC, "DMPI_SHM_MALLOC", BOOL, 1, "", SHM, TUNER_BASIC, LOCAL, INIT,         \
              "large mallocs come from the shared heap (mpiexec preloads libdmpi_malloc.so)")   \
    DMPI_KNOB(SHM_MALLOC_MIN, "DMPI_SHM_MALLOC_MIN", INT, 65536, "", SHM, TUNER_DETAIL, LOCAL,   \
              INIT, "smallest malloc served from the shared heap")                             \
    DMPI_KNOB(LOCAL_MAX, "DMPI_LOCAL_MAX", INT, 65536, "", P2P, TUNER_DETAIL, LOCAL, INIT,       \
              "standard sends to the node up to this size are not held up by a late receiver")  \
    DMPI_KNOB(LATE_US, "DMPI_LATE_US", INT, 100, "", P2P, TUNER_DETAIL, LOCAL, LIVE,             \
              "how long such a send waits for its receiver before its data is moved aside")    \
    DMPI_KNOB(SELF_EAGER_MAX, "DMPI_SELF_EAGER_MAX", INT, 65536, "", P2P, TUNER_DETAIL, LOCAL,   \
              INIT, "sends to oneself up to this size are buffered")                           \
    DMPI_KNOB(SHM_RING_CELLS, "DMPI_SHM_RING_CELLS", INT, 1024, "1024 (<=16 ranks), else 256",   \
              SHM, TUNER_DETAIL, ALL_EQ, INIT, "64-byte cells per ring (power of two)")         \
    DMPI_KNOB(BIND, "DMPI_BIND", ENUM_BIND, 1, "", WAIT, USER_BASIC, LOCAL, INIT,                \
              "pin each rank to a processor: none, core (when there is one per rank), "       \
              "round_robin (also with more ranks than processors)")                            \
    DMPI_KNOB(SPIN, "DMPI_SPIN", INT, 4000, "4000 with a core per rank, else 0", WAIT,           \
              TUNER_BASIC, LOCAL, LIVE, "idle polls spent spinning before yielding")            \
    DMPI_KNOB(SPIN_US, "DMPI_SPIN_US", INT, 50, "", WAIT, TUNER_BASIC, LOCAL, LIVE,             \
              "with network peers: microseconds spent spinning at most (or DMPI_SPIN polls)")    \
    DMPI_KNOB(YIELD, "DMPI_YIELD", INT, 1000,                                                   \
              "2 when ranks share cores; else 0 without network peers, 1000 with them", WAIT,  \
              TUNER_DETAIL, LOCAL, LIVE,                                                         \
              "idle polls that yield the processor before sleeping")                           \
    DMPI_KNOB(IDLE_SLEEP_US, "DMPI_IDLE_SLEEP_US", INT, 10, "", WAIT, TUNER_DETAIL, LOCAL, LIVE, \
              "microseconds each idle poll sleeps after that")                                 \
    DMPI_KNOB(POLL_YIELD_AFTER, "DMPI_POLL_YIELD_AFTER", INT, 1, "", WAIT, TUNER_DETAIL, LOCAL,  \
              LIVE, "empty polls in a row after which test/probe calls yield (contended cores)") \
    DMPI_KNOB(PREEMPT_DETECT, "DMPI_PREEMPT_DETECT", BOOL, 0, "", WAIT, TUNER_DETAIL, LOCAL,     \
              INIT, "also count cores as contended when this rank is preempted")               \
    DMPI_KNOB(PREEMPT_SAMPLE_US, "DMPI_PREEMPT_SAMPLE_US", INT, 10000, "", WAIT, MPIDEV_DETAIL,  \
              LOCAL, INIT, "how often preemption is sampled")                                  \
    DMPI_KNOB(PREEMPT_SHARE, "DMPI_PREEMPT_SHARE", INT, 5, "", WAIT, MPIDEV_DETAIL, LOCAL, INIT, \
              "percent of a sample spent on a run queue that counts as preempted")             \
    DMPI_KNOB(PREEMPT_HOLD_MS, "DMPI_PREEMPT_HOLD_MS", INT, 100, "", WAIT, MPIDEV_DETAIL, LOCAL, \
              INIT, "how long cores count as contended after a preemption")                    \
    DMPI_KNOB(PREEMPT_GAP_US, "DMPI_PREEMPT_GAP_US", INT, 2000, "", WAIT, MPIDEV_DETAIL, LOCAL,  \
              INIT, "a gap this long in a spinning wait counts as a preemption")               \
    DMPI_KNOB(ASYNC_PROGRESS, "DMPI_ASYNC_PROGRESS", BOOL, 0, "", WAIT, USER_BASIC, LOCAL, INIT, \
              "a progress thread serves other processes while the program computes")           \
    DMPI_KNOB(ASYNC_PROGRESS_US, "DMPI_ASYNC_PROGRESS_US", INT, 50, "", WAIT, TUNER_DETAIL,       \
              LOCAL, INIT, "microseconds the progress thread sleeps after a pass that found nothing") \
    DMPI_KNOB(NO_CMA, "DMPI_NO_CMA", BOOL, 0, "", SHM, TUNER_BASIC, ALL_EQ, INIT,                \
              "on: no single-copy transfers (everything through the rings)")                   \
    DMPI_KNOB(OFI_EAGER_MAX, "DMPI_OFI_EAGER_MAX", INT, 65536, "", NET, TUNER_BASIC, LOCAL,      \
              INIT, "between nodes, messages up to this size go as one packet")                \
    DMPI_KNOB(OFI_FRAG_MAX, "DMPI_OFI_FRAG_MAX", INT, 65536, "", NET, TUNER_DETAIL, ALL_EQ,      \
              INIT, "largest payload of one network packet")                                   \
    DMPI_KNOB(OFI_IFACE, "DMPI_OFI_IFACE", STR, 0, "(first non-loopback interface)", NET,        \
              USER_BASIC, LOCAL, INIT, "network interface (libfabric domain) between nodes")    \
    DMPI_KNOB(OFI_RECV_BUFS, "DMPI_OFI_RECV_BUFS", INT, 64, "", NET, TUNER_DETAIL, LOCAL, INIT,  \
              "packet-sized receive buffers kept posted")                                      \
    DMPI_KNOB(OFI_MR_CACHE, "DMPI_OFI_MR_CACHE", INT, 64, "", NET, TUNER_DETAIL, LOCAL, INIT,    \
              "idle memory registrations kept for reuse")                                      \
    DMPI_KNOB(OFI_RTR, "DMPI_OFI_RTR", BOOL, 1, "", NET, TUNER_DETAIL, ALL_EQ, INIT,             \
              "receiver-first rendezvous between nodes")                                       \
    DMPI_KNOB(RMA_NET_INLINE, "DMPI_RMA_NET_INLINE", INT, 4096, "", NET, TUNER_DETAIL, ALL_EQ,   \
              INIT, "RMA puts and gets to other nodes up to this size go as requests")         \
    DMPI_KNOB(IO_STAGE, "DMPI_IO_STAGE", INT, 4194304, "", IO, TUNER_DETAIL, LOCAL, INIT,        \
              "bytes of the buffer a noncontiguous memory type is packed through per I/O call") \
    DMPI_KNOB(IO_CB, "DMPI_IO_CB", INT, 1, "", IO, TUNER_BASIC, ALL_EQ, INIT,                    \
              "two-phase collective I/O: 0 never, 1 interleaved noncontiguous accesses on "     \
              "network file systems, 2 interleaved on any file system, 3 always")               \
    DMPI_KNOB(IO_CB_BUFFER, "DMPI_IO_CB_BUFFER", INT, 16777216, "", IO, TUNER_DETAIL, ALL_EQ,    \
              INIT, "bytes of file a two-phase aggregator handles per round")                  \
    DMPI_KNOB(OFI_VERBOSE, "DMPI_OFI_VERBOSE", BOOL, 0, "", NET, USER_DETAIL, LOCAL, INIT,       \
              "rank 0 prints the libfabric provider, interface and eager limit")               \
    DMPI_KNOB(OFI_STATS, "DMPI_OFI_STATS", BOOL, 0, "", NET, USER_DETAIL, LOCAL, INIT,           \
              "each rank prints its registration cache figures at MPI_Finalize")               \
    DMPI_KNOB(OFI_RETRY_S, "DMPI_OFI_RETRY_S", INT, 2, "", NET, USER_DETAIL, LOCAL, INIT,        \
              "seconds an operation that failed on a dropped connection is posted again")      \
    DMPI_KNOB(OFI_WIREUP, "DMPI_OFI_WIREUP", BOOL, 0, "1 with libfabric's net/tcp provider, else 0", \
              NET, USER_DETAIL, ALL_EQ, INIT,                                                    \
              "connect every pair of ranks on different nodes at start-up, from the lower rank") \
    DMPI_KNOB(PROCESS_MAPPING, "DMPI_PROCESS_MAPPING", STR, 0, "(the launcher's)", LAUNCH,       \
              MPIDEV_BASIC, ALL_EQ, INIT, "replaces the launcher's PMI_process_mapping")        \
    DMPI_KNOB(LAUNCHER, "DMPI_LAUNCHER", ENUM_LAUNCHER, 0, "(by the allocation)", LAUNCH,        \
              USER_BASIC, CONSTANT, NEVER, "read by mpiexec: how it starts its agents")        \
    DMPI_KNOB(PMI, "DMPI_PMI", ENUM_PMI, 0, "automatic", LAUNCH, USER_DETAIL, LOCAL, INIT,       \
              "how to reach the launcher: auto, pmix, pmi2, pmi1, singleton")                  \
    DMPI_KNOB(PEER_WATCH, "DMPI_PEER_WATCH", BOOL, 0, "1 under PMI-2 and PMIx launchers, else 0", \
              LAUNCH, USER_DETAIL, LOCAL, INIT,                                                  \
              "watch the node's ranks and the next node while waiting; abort if one died")    \
    DMPI_KNOB(PMI_TIMEOUT, "DMPI_PMI_TIMEOUT", INT, 300, "", LAUNCH, USER_DETAIL, LOCAL, LIVE,   \
              "seconds one answer from the launcher may take; 0: forever")                     \
    DMPI_KNOB(UNIVERSE_SIZE, "DMPI_UNIVERSE_SIZE", INT, 0, "np + 1024 (mpiexec)", LAUNCH,          \
              USER_BASIC, ALL_EQ, INIT,                                                          \
              "room for processes in all, spawned ones included (mpiexec -usize; MPI_UNIVERSE_SIZE)") \
    DMPI_KNOB(CONNECT_TIMEOUT, "DMPI_CONNECT_TIMEOUT", INT, 60, "", LAUNCH, USER_DETAIL, LOCAL, LIVE, \
              "seconds to wait for another job's process or MPI_Comm_accept (dynamic processes)")    \
    DMPI_KNOB_COLL_ALGO(BARRIER, "DMPI_COLL_BARRIER_ALGO")                                    \
    DMPI_KNOB_COLL_ALGO(BCAST, "DMPI_COLL_BCAST_ALGO")                                        \
    DMPI_KNOB_COLL_ALGO(REDUCE, "DMPI_COLL_REDUCE_ALGO")                                      \
    DMPI_KNOB_COLL_ALGO(ALLREDUCE, "DMPI_COLL_ALLREDUCE_ALGO")                                \
    DMPI_KNOB_COLL_ALGO(GATHER, "DMPI_COLL_GATHER_ALGO")                                      \
    DMPI_KNOB_COLL_ALGO(SCATTER, "DMPI_COLL_SCATTER_ALGO")                                    \
    DMPI_KNOB_COLL_ALGO(ALLGATHER, "DMPI_COLL_ALLGATHER_ALGO")                                \
    DMPI_KNOB_COLL_ALGO(ALLTOALL, "DMPI_COLL_ALLTOALL_ALGO")                                  \
    DMPI_KNOB_COLL_ALGO(GATHERV, "DMPI_COLL_GATHERV_ALGO")                                    \
    DMPI_KNOB_COLL_ALGO(SCATTERV, "DMPI_COLL_SCATTERV_ALGO")                                  \
    DMPI_KNOB_COLL_ALGO(ALLGATHERV, "DMPI_COLL_ALLGATHERV_ALGO")                              \
    DMPI_KNOB_COLL_ALGO(ALLTOALLV, "DMPI_COLL_ALLTOALLV_ALGO")                                \
    DMPI_KNOB_COLL_ALGO(ALLTOALLW, "DMPI_COLL_ALLTOALLW_ALGO")                                \
    DMPI_KNOB_COLL_ALGO(REDUCE_SCATTER, "DMPI_COLL_REDUCE_SCATTER_ALGO")                      \
    DMPI_KNOB_COLL_ALGO(REDUCE_SCATTER_BLOCK, "DMPI_COLL_REDUCE_SCATTER_BLOCK_ALGO")          \
    DMPI_KNOB_COLL_ALGO(SCAN, "DMPI_COLL_SCAN_ALGO")                                          \
    DMPI_KNOB_COLL_ALGO(EXSCAN, "DMPI_COLL_EXSCAN_ALGO")                                      \
    DMPI_KNOB(COLL_HIER, "DMPI_COLL_HIER", BOOL, 1, "", COLL, TUNER_BASIC, ALL_EQ, INIT,         \
              "node-aware collectives on communicators spanning nodes")                        \
    DMPI_KNOB(COLL_HIER_ALLTOALL, "DMPI_COLL_HIER_ALLTOALL", INT, 32768, "", COLL, TUNER_DETAIL, \
              ALL_EQ, INIT, "node-aware alltoall: combine blocks between nodes up to this")     \
    DMPI_KNOB(COLL_SHM_SLOT, "DMPI_COLL_SHM_SLOT", INT, 16384, "", COLL, TUNER_DETAIL, ALL_EQ,   \
              INIT, "bytes of each process's slot in the shared-memory collective area")       \
    DMPI_KNOB(COLL_SHM_MAX_RANKS, "DMPI_COLL_SHM_MAX_RANKS", INT, 64, "", COLL, TUNER_DETAIL,    \
              ALL_EQ, INIT, "largest communicator with shared-memory collectives; 0: off")     \
    DMPI_KNOB(COLL_SHM_TREE_RANKS, "DMPI_COLL_SHM_TREE_RANKS", INT, 8, "", COLL, TUNER_DETAIL,   \
              ALL_EQ, INIT, "shared-memory reductions on this many ranks combine in a tree")   \
    DMPI_KNOB(ACCEL, "DMPI_ACCEL", STR, 0, "auto", ACCEL, USER_BASIC, LOCAL, INIT,               \
              "memory-kind backends: auto, none, cuda, emul (comma-separated)")                \
    DMPI_KNOB(CUDA_DEVICE, "DMPI_CUDA_DEVICE", INT, 0, "", ACCEL, USER_DETAIL, LOCAL, INIT,      \
              "the GPU whose primary context the CUDA backend uses")
