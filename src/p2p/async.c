/* The asynchronous progress thread (DMPI_ASYNC_PROGRESS=1). Some work
 * needs this process's progress engine while the program computes outside
 * MPI: one-sided operations from other nodes (the target applies
 * accumulates and small puts/gets, and with manual-progress providers
 * even remote reads and writes need its libfabric progress), rendezvous
 * reads of its send buffers, control replies. The thread runs one
 * progress pass whenever no application thread holds the big lock, and
 * sleeps DMPI_ASYNC_PROGRESS_US between passes that found nothing. With it
 * on, the library locks as under MPI_THREAD_MULTIPLE whatever level the
 * program asked for (MPI_Query_thread still reports that level). */
#include "core/dmpi.h"
#include "p2p/p2p.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <time.h>

static pthread_t thread;
static bool running;
static atomic_bool stop;

static void *async_main(void *arg)
{
    (void)arg;
    /* the default 50 us of timer slack would stretch every short sleep */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    long interval_ns = dmpi_knob(DMPI_KNOB_ASYNC_PROGRESS_US) * 1000;
    if (interval_ns < 1000) interval_ns = 1000;
    while (!atomic_load_explicit(&stop, memory_order_acquire)) {
        int found = 0;
        /* an application thread inside MPI progresses for both of us */
        if (dmpi_trylock()) {
            found = dmpi_progress();
            dmpi_unlock();
        }
        if (!found) {
            struct timespec ts = {0, interval_ns};
            nanosleep(&ts, NULL);
        }
    }
    return NULL;
}

bool dmpi_async_progress_wanted(void)
{
    return dmpi_knob(DMPI_KNOB_ASYNC_PROGRESS) != 0;
}

int dmpi_async_progress_start(void)
{
    if (running || !dmpi_async_progress_wanted()) return MPI_SUCCESS;
    atomic_store(&stop, false);
    if (pthread_create(&thread, NULL, async_main, NULL) != 0) {
        fprintf(stderr, "dmpi: rank %d: DMPI_ASYNC_PROGRESS: cannot start the progress thread\n",
                dmpi_rt.world_rank);
        return MPI_ERR_OTHER;
    }
    running = true;
    return MPI_SUCCESS;
}

void dmpi_async_progress_stop(void)
{
    if (!running) return;
    atomic_store_explicit(&stop, true, memory_order_release);
    pthread_join(thread, NULL);
    running = false;
}
