/* Progress engine and waiting. dmpi_progress polls every peer's ring once,
 * pushes queued sends and control replies, and runs the poll hooks of
 * schedule-driven requests (collectives, generalized requests). Waiting
 * loops call dmpi_progress_idle when nothing happened: it spins briefly
 * (cheapest when the partner runs on another core), then yields the
 * processor on every idle poll (so ranks that outnumber cores still make
 * progress), and every 0.1 s checks that the launcher is still alive (a
 * rank whose mpiexec is gone exits instead of waiting forever).
 *
 * Calls that return without waiting (MPI_Test*, MPI_Iprobe, ...) report
 * each poll (dmpi_poll_result): after a few in a row that found nothing
 * they give up the processor when cores are contended, because the rank
 * that would send us something may be waiting for ours. Contended means
 * ranks sharing processors (known at start-up) or, found as it happens,
 * this rank being kept from running: the time the kernel says this thread
 * waited on a run queue (schedstat, sampled every 10 ms) was a noticeable
 * share of the period, or a spinning wait saw a gap in the clock (that
 * second signal is off by default: DMPI_PREEMPT_DETECT, measurements in
 * dmpi_p2p_init). On an idle node nothing changes. */
#include "core/knob.h"
#include "p2p/p2p.h"
#include "pmi/pmi.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

dmpi_p2p_state dmpi_p2p;
static unsigned spin_limit, sleep_us;
static long yield_knob; /* DMPI_YIELD as set, or -1 for the default (yield_limit) */
static int64_t spin_ns; /* DMPI_SPIN_US: the spinning's limit in time */

/* ------------------------------------------------ contention, as it happens */
_Thread_local unsigned dmpi_poll_empty_run;
unsigned dmpi_poll_yield_after = ~0u;
bool dmpi_poll_may_yield;
static struct {
    bool detect;             /* DMPI_PREEMPT_DETECT (default off, see below) */
    int64_t sample_ns;       /* sample the run-queue wait this often */
    int64_t hold_ns;         /* count as contended this long after preemption */
    int64_t share_pct;       /* preempted: waited this share of a sample period */
    int64_t gap_ns;          /* a clock gap this long in a wait means preemption */
    _Atomic int64_t until;   /* contended until then (any thread saw it) */
} preempt;
/* Each thread's own last sample: the time it spent runnable but waiting
 * for a processor (the kernel's run_delay, /proc/thread-self/schedstat),
 * or where that file is missing its involuntary context switches. */
static _Thread_local int64_t sample_time, sample_waited;
static _Thread_local long sample_nivcsw;

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
/* A tick's resolution (1-4 ms) and the cost of a memory read. */
static int64_t coarse_ns(void) { return clock_ns(CLOCK_MONOTONIC_COARSE); }

static void mark_preempted(int64_t now)
{
    atomic_store_explicit(&preempt.until, now + preempt.hold_ns, memory_order_relaxed);
}

/* Nanoseconds this thread has waited on a run queue; -1 if unknown. */
static int64_t run_delay_ns(void)
{
    int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char buf[96];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = 0;
    unsigned long long run, waited;
    return sscanf(buf, "%llu %llu", &run, &waited) == 2 ? (int64_t)waited : -1;
}

/* Was this thread kept from running for a noticeable share of the time
 * since the last sample (or, without schedstat, preempted at all)? */
static bool sample_preempted(int64_t now)
{
    int64_t waited = run_delay_ns(), span = now - sample_time;
    bool first = sample_time == 0, hit;
    if (waited >= 0) {
        hit = !first && (waited - sample_waited) * 100 >= preempt.share_pct * span;
        sample_waited = waited;
    } else {
        struct rusage ru;
        if (getrusage(RUSAGE_THREAD, &ru) != 0) return false;
        hit = !first && ru.ru_nivcsw > sample_nivcsw;
        sample_nivcsw = ru.ru_nivcsw;
    }
    return hit;
}

/* True when this rank has lately been kept from running by other work.
 * Cheap: a coarse clock read; a sample at most once per sample period. */
static bool preempted_lately(void)
{
    if (!preempt.detect) return false;
    int64_t now = coarse_ns();
    if (now - sample_time >= preempt.sample_ns) {
        if (sample_preempted(now)) mark_preempted(now);
        sample_time = now;
    }
    return now < atomic_load_explicit(&preempt.until, memory_order_relaxed);
}

void dmpi_poll_yield(void)
{
    dmpi_poll_empty_run = 0;
    if (dmpi_rt.crowded || preempted_lately()) sched_yield();
}

/* Requests with a poll hook that are still running (collective schedules). */
static dmpi_request **hooked;
static int nhooked, cap_hooked;

void (*dmpi_rma_packet_hook)(int peer, const struct dmpi_ring *ring, const struct dmpi_pkt *p);
int (*dmpi_rma_progress_hook)(void);

void dmpi_progress_register(dmpi_request *r)
{
    if (nhooked == cap_hooked) {
        cap_hooked = cap_hooked ? 2 * cap_hooked : 16;
        hooked = realloc(hooked, (size_t)cap_hooked * sizeof *hooked);
        if (!hooked) dmpi_abort_job(1, "dmpi: out of memory in the progress engine");
    }
    hooked[nhooked++] = r;
}

static int poll_hooks(void)
{
    int n = 0;
    for (int i = 0; i < nhooked;) {
        dmpi_request *r = hooked[i];
        if (r->poll(r)) {
            hooked[i] = hooked[--nhooked];
            n++;
        } else {
            i++;
        }
    }
    return n;
}

int dmpi_progress(void)
{
    int n = 0;
    for (int i = 0; i < dmpi_tp.nshm; i++) {
        int p = dmpi_tp.shm_peers[i];
        dmpi_tx_peer *tx = &dmpi_p2p.tx[p];
        if (tx->head || tx->ctl_head) dmpi_tx_push(p);
        n += dmpi_rx_poll_peer(p);
    }
    /* Network peers: their completions (arriving packets are handled from
     * there). Their channels always take a packet, so no send waits. */
    if (dmpi_tp.net) n += dmpi_tp.net->progress();
    if (dmpi_p2p.rts_waiting) n += dmpi_coop_help();
    /* now and then: sends waiting too long for a late receiver */
    static unsigned late_tick;
    if ((dmpi_p2p.rts_waiting || dmpi_p2p.pending_sends) && dmpi_p2p.local_max &&
        (++late_tick & 63) == 0)
        n += dmpi_late_scan();
    if (nhooked) n += poll_hooks();
    if (dmpi_rma_progress_hook) n += dmpi_rma_progress_hook();
    return n;
}

/* The clock at the last check of this thread's spinning wait. */
static _Thread_local int64_t idle_clock;

static bool spin_preempted(unsigned i)
{
    int64_t now = clock_ns(CLOCK_MONOTONIC);
    if (i > 64 && now - idle_clock > preempt.gap_ns) mark_preempted(coarse_ns());
    idle_clock = now;
    return preempted_lately();
}

/* The spinning's limit in time, from its 64th poll on (a short wait never
 * reads the clock). A poll that includes the network (an epoll_wait) takes
 * a microsecond or two, a poll of rings tens of nanoseconds: counted in
 * polls alone, a rank with network peers spun for milliseconds, and where
 * processors are shared with other hosts' or programs' processes that the
 * rank cannot see, it held a core its partners needed (stencil 24^3 on
 * 3 test hosts sharing 2 cores, 100 iterations: 3 ranks 92 -> 20 ms,
 * 6 ranks 197 -> 31 ms, MPICH 14 and 22 ms; docs/results/2026-11-27-spin). */
static _Thread_local int64_t spin_since;
static bool spin_over(unsigned i)
{
    /* Ranks with no network peer keep spinning by polls: with busy
     * processes beside 2 ranks on 2 cores, yielding after 50 us made
     * app_patterns latemix 0.26 -> 2.95 s and alltosome 0.48 -> 1.45 s
     * (a yield there hands the core to the busy process for a slice). */
    if (!dmpi_tp.net) return false;
    int64_t now = clock_ns(CLOCK_MONOTONIC);
    if (i == 64) spin_since = now;
    return now - spin_since > spin_ns;
}

/* Idle polls that yield after the spinning, before sleeping. Ranks with a
 * core each whose peers all share the node sleep at once: a yield gives
 * the processor to any runnable process, and with busy processes beside the job (other
 * programs, other jobs) that process keeps it for a whole time slice while
 * the yielding rank, still runnable, goes to the back with nothing owed; a
 * sleeping rank is woken as soon as its timer fires, ahead of them. 2 cores
 * with 2 busy processes, medians of 6 alternating runs: app_patterns
 * alltosome 2 ranks 0.49 -> 0.35 s, latemix 4 ranks 0.93 -> 0.50 s (MPICH
 * 5.0.2 0.33 and 0.72 s); the same without busy processes within noise.
 * On an idle node with a core per rank a yield returns at once, so only
 * waits longer than the spinning (4000 polls) change. Ranks with network
 * peers keep yielding (measured with it: docs/results/2026-11-27-spin).
 * Ranks sharing processors (more ranks than cores) keep their two yields:
 * there the partner they wait for is most often another rank, which the
 * yield hands the processor to (latemix at 4 ranks on 2 cores, nothing
 * else running, medians of 5: 0.21 s with 2 yields, 0.26-0.28 s with none;
 * Open MPI 5.0.11 0.22-0.27 s; session 13). */
static unsigned yield_limit(void)
{
    if (yield_knob >= 0) return (unsigned)yield_knob;
    if (!dmpi_tp.net) return dmpi_rt.crowded ? 2 : 0;
    return dmpi_rt.crowded ? 2 : 1000;
}

void dmpi_progress_idle(unsigned *idle)
{
    unsigned i = ++*idle;
    /* every 64 spins: the time limit reached, or (with DMPI_PREEMPT_DETECT)
     * a gap in the clock or preemption seen by the kernel, ends the
     * spinning at once */
    if (i < spin_limit && !((i & 63) == 0 && ((preempt.detect && spin_preempted(i)) || spin_over(i)))) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        return;
    }
    if (i < spin_limit) *idle = i = spin_limit;
    bool threaded = dmpi_rt.locking;
    if (threaded) dmpi_unlock();
    if (i - spin_limit < yield_limit()) sched_yield();
    else if (dmpi_tp.net && !dmpi_tp.nshm && !threaded)
        dmpi_tp.net->wait(1); /* only the network can wake us */
    else usleep(sleep_us);
    if (threaded) dmpi_lock();
    /* By the clock, not by iterations: with more ranks than cores a
     * thousand yields can take seconds. */
    dmpi_check_launcher();
}

void dmpi_progress_wait_flag(_Atomic int *flag)
{
    unsigned idle = 0;
    while (!atomic_load_explicit(flag, memory_order_acquire)) {
        if (dmpi_progress()) idle = 0;
        else dmpi_progress_idle(&idle);
    }
}

/* The waiting knobs, read at MPI_Init and again after each MPI_T write
 * (dmpi_knob_watch): they only steer how this rank waits. */
static void apply_knob(int id)
{
    switch (id) {
    case DMPI_KNOB_LATE_US: dmpi_p2p.late_ns = dmpi_knob(id) * 1000; break;
    case DMPI_KNOB_SPIN: spin_limit = (unsigned)dmpi_knob_or(id, dmpi_rt.crowded ? 0 : 4000); break;
    case DMPI_KNOB_SPIN_US: spin_ns = dmpi_knob(id) * 1000; break;
    /* Set, or by default decided per wait (yield_limit: 0 without network
     * peers; with them 1000 with a core per rank, else 2). */
    case DMPI_KNOB_YIELD:
        yield_knob = dmpi_knob_or(id, -1);
        if (yield_knob < 0) dmpi_knob_set_effective(id, (long)yield_limit());
        break;
    case DMPI_KNOB_IDLE_SLEEP_US: sleep_us = (unsigned)dmpi_knob(id); break;
    case DMPI_KNOB_POLL_YIELD_AFTER:
        dmpi_poll_yield_after = (unsigned)dmpi_knob(id);
        if (dmpi_poll_yield_after == 0) dmpi_poll_yield_after = 1;
        dmpi_knob_set_effective(id, (long)dmpi_poll_yield_after);
        break;
    }
    dmpi_knob_watch(id, apply_knob);
}

int dmpi_p2p_init(void)
{
    dmpi_p2p.me = dmpi_rt.uni_rank;
    dmpi_p2p.nprocs = dmpi_rt.uni_size;
    dmpi_p2p.rx = calloc((size_t)dmpi_p2p.nprocs, sizeof(dmpi_rx_peer));
    dmpi_p2p.tx = calloc((size_t)dmpi_p2p.nprocs, sizeof(dmpi_tx_peer));
    if (!dmpi_p2p.rx || !dmpi_p2p.tx) return MPI_ERR_NO_MEM;
    uint64_t ring_bytes = dmpi_tp.nshm ? dmpi_tp.out[dmpi_tp.shm_peers[0]].ncells * DMPI_CELL : 65536;
    dmpi_p2p.eager_max = (uint64_t)dmpi_knob(DMPI_KNOB_EAGER_MAX);
    /* Pieces of 4 KiB let the receiver copy one out while the sender
     * writes the next: 2 ranks, 16 KiB ping-pong 0.96 against 1.16 us with
     * 16 KiB pieces, bandwidth 0.86 against 0.99 us per message
     * (bench/sweep_env.sh DMPI_FRAG_MAX). */
    uint64_t frag_default = ring_bytes / 4 < 4096 ? ring_bytes / 4 : 4096;
    dmpi_p2p.frag_max = (uint64_t)dmpi_knob_or(DMPI_KNOB_FRAG_MAX, (long)frag_default);
    if (dmpi_p2p.frag_max > ring_bytes / 2) dmpi_p2p.frag_max = ring_bytes / 2;
    /* a packet's cell count is 16 bits */
    uint64_t frag_cap = DMPI_INLINE_BYTES + (uint64_t)(UINT16_MAX - 1) * DMPI_CELL;
    if (dmpi_p2p.frag_max > frag_cap) dmpi_p2p.frag_max = frag_cap;
    if (dmpi_p2p.frag_max < 1024) dmpi_p2p.frag_max = 1024;
    dmpi_knob_set_effective(DMPI_KNOB_FRAG_MAX, (long)dmpi_p2p.frag_max);
    /* From a buffer in the shared heap, rendezvous is one memcpy that both
     * sides share (coop.c): 2 ranks, heap buffers, 16 KiB: bandwidth 0.43
     * against 0.79 us per message eager, ping-pong 1.02 against 0.98; 64
     * KiB ping-pong 2.64 against 4.75 (bench/dmpi_bench_pt2pt --alloc-mem). */
    dmpi_p2p.heap_eager_max = (uint64_t)dmpi_knob(DMPI_KNOB_HEAP_EAGER_MAX);
    /* A standard-mode send to a rank of the node up to local_max bytes is
     * not held up by a late receiver: after waiting late_ns its data is
     * moved aside and it completes (late.c, docs/design.md). 100 us: 2
     * ranks, medians of 5 alternating runs, bandwidth 64 KiB 3.68 / 3.78 /
     * 3.38 / 3.24 us per message at 20 / 50 / 100 / 200 us (a window of
     * sends to a busy receiver gets moved needlessly), app_patterns latemix
     * 0.124 s up to 100 us, 0.141 s at 200. */
    dmpi_p2p.local_max = (uint64_t)dmpi_knob(DMPI_KNOB_LOCAL_MAX);
    apply_knob(DMPI_KNOB_LATE_US);
    dmpi_p2p.coop_min = (uint64_t)dmpi_knob(DMPI_KNOB_COOP_MIN);
    dmpi_p2p.coop_chunk = (uint64_t)dmpi_knob(DMPI_KNOB_COOP_CHUNK);
    if (dmpi_p2p.coop_chunk < 4096) dmpi_p2p.coop_chunk = 4096;
    dmpi_knob_set_effective(DMPI_KNOB_COOP_CHUNK, (long)dmpi_p2p.coop_chunk);
    dmpi_tp.deliver = dmpi_rx_packet_linear;
    dmpi_p2p.self_eager_max = (uint64_t)dmpi_knob(DMPI_KNOB_SELF_EAGER_MAX);
    dmpi_p2p.offer_min = (uint64_t)dmpi_knob_or(DMPI_KNOB_OFFER_MIN, (long)dmpi_p2p.eager_max);
    /* Spinning only pays when every rank can have a core; with more ranks
     * than cores, yielding at once measured 2-3x faster collectives than
     * 50 spins first (4 ranks on 2 cores). */
    apply_knob(DMPI_KNOB_SPIN);
    apply_knob(DMPI_KNOB_SPIN_US);
    apply_knob(DMPI_KNOB_YIELD);
    /* Polling calls: yield after this many empty polls in a row when cores
     * are contended. bench/app_patterns poll, 4 and 8 ranks on 2 cores,
     * medians of 3 alternating runs: after 1 empty poll 0.42 and 0.86 s,
     * after 4 0.54 and 0.83 s, after 16 0.99 and 1.56 s. */
    apply_knob(DMPI_KNOB_POLL_YIELD_AFTER);
    /* Off by default: yielding because other work preempted us measured
     * far worse than spinning (2 ranks + 2 busy processes on 2 cores,
     * app_patterns alltosome 7.3 s against 0.36 s, latemix 2.8 against
     * 0.25 s): the yield hands the core to the busy process for a whole
     * time slice, while the peer we wait for runs on the other core. */
    preempt.detect = dmpi_knob(DMPI_KNOB_PREEMPT_DETECT) != 0;
    dmpi_poll_may_yield = dmpi_rt.crowded || preempt.detect;
    preempt.sample_ns = dmpi_knob(DMPI_KNOB_PREEMPT_SAMPLE_US) * 1000;
    preempt.share_pct = dmpi_knob(DMPI_KNOB_PREEMPT_SHARE);
    preempt.hold_ns = dmpi_knob(DMPI_KNOB_PREEMPT_HOLD_MS) * 1000000;
    preempt.gap_ns = dmpi_knob(DMPI_KNOB_PREEMPT_GAP_US) * 1000;
    apply_knob(DMPI_KNOB_IDLE_SLEEP_US);
    return MPI_SUCCESS;
}

void dmpi_p2p_finalize(void)
{
    /* Drain outgoing control replies so peers waiting on them finish. */
    unsigned idle = 0;
    for (int p = 0; p < dmpi_p2p.nprocs; p++) {
        while (dmpi_p2p.tx && (dmpi_p2p.tx[p].head || dmpi_p2p.tx[p].ctl_head)) {
            if (!dmpi_progress()) dmpi_progress_idle(&idle);
        }
    }
    /* Wait for every rank, still draining our rings so that no peer stays
     * blocked on ring space (messages nobody receives are dropped). */
    dmpi_shm_arrive_finalize();
    if (dmpi_tp.net) dmpi_tp.net->arrive_finalize();
    idle = 0;
    while (!dmpi_shm_all_finalized() || (dmpi_tp.net && !dmpi_tp.net->all_finalized())) {
        if (!dmpi_progress()) dmpi_progress_idle(&idle);
    }
    dmpi_unexp *u;
    while ((u = dmpi_unexp_first()) != NULL) {
        dmpi_unexp_remove(u);
        free(u->data);
        free(u);
    }
    free(dmpi_p2p.rx);
    free(dmpi_p2p.tx);
    free(hooked);
    hooked = NULL;
    nhooked = cap_hooked = 0;
    dmpi_p2p.rx = NULL;
    dmpi_p2p.tx = NULL;
}
