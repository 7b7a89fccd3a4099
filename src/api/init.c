/* MPI environment management: Init, Init_thread, Finalize and the queries
 * about the library, the thread level, time and the processor name. */
#include "accel/accel.h"
#include "api/api.h"
#include "core/dynproc.h"
#include "core/attr.h"
#include "pmi/pmi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The runtime is shared by the World model (MPI_Init .. MPI_Finalize) and
 * every session (MPI_Session_init .. MPI_Session_finalize): the first of
 * them starts it. When the last one finishes and MPI_Finalize was called,
 * it is torn down at once. When only sessions used it, it stays up, idle,
 * until the process exits (atexit), so that sessions can start again and
 * MPI_Init can come later (MPI 4.1 sec. 11.3: the sessions model may be
 * initialized and finalized any number of times): the PMI link to the
 * launcher cannot be opened again once closed, so after a teardown MPI
 * cannot be initialized again in the process (MPI_ERR_OTHER). */
static int runtime_users;
static bool runtime_up;         /* started and not torn down (maybe idle) */
static bool world_initialized, world_finalized;
static pthread_mutex_t users_lock = PTHREAD_MUTEX_INITIALIZER; /* sessions may start in threads */

const char *const dmpi_runtime_gone =
    "MPI was finalized in this process (by the last of MPI_Finalize and MPI_Session_finalize) "
    "and cannot be initialized again";

static bool valid_level(int l)
{
    return l == MPI_THREAD_SINGLE || l == MPI_THREAD_FUNNELED || l == MPI_THREAD_SERIALIZED ||
           l == MPI_THREAD_MULTIPLE;
}

static int acquire(int required, int *provided, const char *fn)
{
    if (runtime_up) {
        /* Raising the level is safe: below MPI_THREAD_MULTIPLE no other
         * thread is inside MPI now, and the lock exists from the start. */
        if (valid_level(required) && required > dmpi_rt.thread_level)
            dmpi_set_thread_level(required);
        if (provided) *provided = dmpi_rt.thread_level;
        runtime_users++;
        return MPI_SUCCESS;
    }
    if (dmpi_rt.finalized) return MPI_ERR_OTHER; /* raised by the caller */
    int rc = dmpi_runtime_init(required, provided);
    if (rc != MPI_SUCCESS)
        dmpi_abort_job(1, "dmpi: %s failed: %s", fn, dmpi_error_class_name(rc));
    dmpi_accel_init(); /* memory kinds: device backends from DMPI_ACCEL */
    runtime_users = 1;
    runtime_up = true;
    if (dmpi_async_progress_start() != MPI_SUCCESS)
        dmpi_abort_job(1, "dmpi: %s failed: no progress thread", fn);
    return MPI_SUCCESS;
}

int dmpi_runtime_acquire(int required, int *provided, const char *fn)
{
    pthread_mutex_lock(&users_lock);
    int rc = acquire(required, provided, fn);
    pthread_mutex_unlock(&users_lock);
    return rc;
}

/* With users_lock held. */
static void teardown(void)
{
    dmpi_async_progress_stop(); /* before the big lock: it may hold it */
    dmpi_lock(); /* waiting loops drop it while they yield */
    dmpi_bsend_finalize(); /* the process's buffer */
    dmpi_attr_free_keyvals();
    dmpi_runtime_finalize();
    dmpi_accel_fini();
    dmpi_unlock();
    runtime_up = false;
}

/* At exit: the runtime that sessions alone used and left idle. */
static void teardown_idle(void)
{
    pthread_mutex_lock(&users_lock);
    if (runtime_up && runtime_users == 0) teardown();
    pthread_mutex_unlock(&users_lock);
}

void dmpi_runtime_release(void)
{
    static bool exit_hook;
    pthread_mutex_lock(&users_lock); /* always before the big lock */
    if (--runtime_users == 0) {
        if (world_finalized) {
            teardown();
        } else if (!exit_hook) {
            exit_hook = true;
            atexit(teardown_idle);
        }
    }
    pthread_mutex_unlock(&users_lock);
}

static int init_common(int required, int *provided, const char *fn)
{
    if (world_initialized || world_finalized)
        return dmpi_error_noobj(MPI_ERR_OTHER, fn, "MPI is already %s",
                                world_finalized ? "finalized" : "initialized");
    int rc = dmpi_runtime_acquire(required, provided, fn);
    if (rc != MPI_SUCCESS) return dmpi_error_noobj(rc, fn, "%s", dmpi_runtime_gone);
    world_initialized = true;
    /* a spawned job connects to its parents (core/dynspawn.c) */
    char err[DMPI_DYN_ERRLEN] = "";
    dmpi_lock();
    rc = dmpi_dyn_init_child(err);
    dmpi_unlock();
    if (rc != MPI_SUCCESS)
        dmpi_abort_job(1, "dmpi: rank %d: %s: cannot connect to the parent job: %s", dmpi_rt.world_rank, fn, err);
    return MPI_SUCCESS;
}

int PMPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return init_common(MPI_THREAD_SINGLE, NULL, "MPI_Init");
}
DMPI_ALIAS(Init)

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc;
    (void)argv;
    if (!provided) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Init_thread", "provided is NULL");
    return init_common(required, provided, "MPI_Init_thread");
}
DMPI_ALIAS(Init_thread)

int PMPI_Finalize(void)
{
    static const char *const FN = "MPI_Finalize";
    DMPI_CHECK_INIT(FN);
    if (!world_initialized || world_finalized)
        return dmpi_error_noobj(MPI_ERR_OTHER, FN, "MPI_Init was %s",
                                world_finalized ? "already finalized" : "not called");
    dmpi_lock();
    dmpi_attr_finalize(); /* MPI_COMM_SELF's delete callbacks run first */
    dmpi_bsend_finalize();
    world_finalized = true;
    dmpi_unlock();
    dmpi_runtime_release(); /* takes its own lock first, then the big one */
    return MPI_SUCCESS;
}
DMPI_ALIAS(Finalize)

/* Both are about the World model alone (MPI 4.1 sec. 11.2.1 and 11.2.2):
 * sessions do not make MPI "initialized" nor their end "finalized". */
int PMPI_Initialized(int *flag)
{
    if (!flag) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Initialized", "flag is NULL");
    *flag = world_initialized;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Initialized)

int PMPI_Finalized(int *flag)
{
    if (!flag) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Finalized", "flag is NULL");
    *flag = world_finalized;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Finalized)

int PMPI_Query_thread(int *provided)
{
    DMPI_CHECK_INIT("MPI_Query_thread");
    if (!provided) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Query_thread", "provided is NULL");
    *provided = dmpi_rt.thread_level;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Query_thread)

int PMPI_Is_thread_main(int *flag)
{
    DMPI_CHECK_INIT("MPI_Is_thread_main");
    if (!flag) return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Is_thread_main", "flag is NULL");
    *flag = pthread_equal(pthread_self(), dmpi_rt.main_thread);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Is_thread_main)

int PMPI_Get_version(int *version, int *subversion)
{
    if (!version || !subversion)
        return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Get_version", "NULL argument");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Get_version)

int PMPI_Get_library_version(char *version, int *resultlen)
{
    if (!version || !resultlen)
        return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Get_library_version", "NULL argument");
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "dmpi %s (MPI %d.%d, standard ABI %d.%d)", DMPI_VERSION_STRING,
                     MPI_VERSION, MPI_SUBVERSION, MPI_ABI_VERSION, MPI_ABI_SUBVERSION);
    *resultlen = n;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Get_library_version)

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    if (!name || !resultlen)
        return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Get_processor_name", "NULL argument");
    char host[MPI_MAX_PROCESSOR_NAME];
    if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = 0;
    *resultlen = snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", host);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Get_processor_name)

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    (void)comm;
    fflush(stdout);
    dmpi_abort_job(errorcode == 0 ? 1 : errorcode & 0xff ? errorcode & 0xff : 1,
                   "dmpi: rank %d called MPI_Abort with error code %d", dmpi_rt.world_rank,
                   errorcode);
}
DMPI_ALIAS(Abort)

double PMPI_Wtime(void)
{
    return dmpi_now() - dmpi_rt.wtime_base;
}
DMPI_ALIAS(Wtime)

double PMPI_Wtick(void)
{
    return 1e-9;
}
DMPI_ALIAS(Wtick)

int PMPI_Abi_get_version(int *abi_major, int *abi_minor)
{
    if (!abi_major || !abi_minor)
        return dmpi_error_noobj(MPI_ERR_ARG, "MPI_Abi_get_version", "NULL argument");
    *abi_major = MPI_ABI_VERSION;
    *abi_minor = MPI_ABI_SUBVERSION;
    return MPI_SUCCESS;
}
DMPI_ALIAS(Abi_get_version)
