/* threads_common.h: what the MPI_THREAD_MULTIPLE tests share (include after
 * common.h): TCHECK, a check that counts in its thread's own slot (thread
 * index t in scope), and t_run_threads, which runs a worker in n threads
 * (given its index), joins them and adds their failures to t_errs. */
#ifndef DMPI_TEST_THREADS_COMMON_H
#define DMPI_TEST_THREADS_COMMON_H

#include <pthread.h>

#define T_MAX_THREADS 16
static int t_thread_errs[T_MAX_THREADS];

#define TCHECK(cond, ...)                                                      \
    do {                                                                       \
        if (!(cond)) {                                                         \
            if (t_thread_errs[t]++ < 5) {                                      \
                fprintf(stderr, "[rank %d thread %d] %s:%d: ", t_rank, t,      \
                        __FILE__, __LINE__);                                   \
                fprintf(stderr, __VA_ARGS__);                                  \
                fputc('\n', stderr);                                           \
            }                                                                  \
        }                                                                      \
    } while (0)

static void t_run_threads(int n, void *(*worker)(void *))
{
    pthread_t th[T_MAX_THREADS];
    for (int t = 0; t < n; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    for (int t = 0; t < n; t++) {
        pthread_join(th[t], NULL);
        t_errs += t_thread_errs[t];
    }
}

#endif
