/* init_basic.c: environment queries around MPI_Init / MPI_Finalize:
 * Initialized/Finalized, Get_version (5.0, also before Init),
 * Get_library_version, Abi_get_version (1.0) and Abi_get_info,
 * Get_processor_name, Query_thread, Is_thread_main, Wtime and Wtick. */
#include "common.h"

int main(int argc, char **argv)
{
    int flag = -1, major = -1, minor = -1;

    /* Callable before MPI_Init. */
    MPI_CHK(MPI_Initialized(&flag));
    CHECK(flag == 0, "MPI_Initialized before Init gave %d", flag);
    MPI_CHK(MPI_Finalized(&flag));
    CHECK(flag == 0, "MPI_Finalized before Init gave %d", flag);
    MPI_CHK(MPI_Get_version(&major, &minor));
    CHECK(major == 5 && minor == 0, "version before Init %d.%d", major, minor);
    MPI_CHK(MPI_Abi_get_version(&major, &minor));
    CHECK(major == 1 && minor == 0, "ABI version before Init %d.%d", major, minor);

    t_init(&argc, &argv);

    MPI_CHK(MPI_Initialized(&flag));
    CHECK(flag == 1, "MPI_Initialized after Init gave %d", flag);
    MPI_CHK(MPI_Finalized(&flag));
    CHECK(flag == 0, "MPI_Finalized after Init gave %d", flag);

    major = minor = -1;
    MPI_CHK(MPI_Get_version(&major, &minor));
    CHECK(major == MPI_VERSION && minor == MPI_SUBVERSION,
          "version %d.%d, header says %d.%d", major, minor, MPI_VERSION, MPI_SUBVERSION);
    CHECK(major == 5 && minor == 0, "version %d.%d, want 5.0", major, minor);
    major = minor = -1;
    MPI_CHK(MPI_Abi_get_version(&major, &minor));
    CHECK(major == 1 && minor == 0, "ABI version %d.%d, want 1.0", major, minor);

    MPI_Info info = MPI_INFO_NULL;
    MPI_CHK(MPI_Abi_get_info(&info));
    CHECK(info != MPI_INFO_NULL, "MPI_Abi_get_info gave MPI_INFO_NULL");
    if (info != MPI_INFO_NULL) MPI_CHK(MPI_Info_free(&info)); /* ours to free */

    static char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = -1;
    memset(lib, 'x', sizeof lib);
    MPI_CHK(MPI_Get_library_version(lib, &len));
    CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING, "library version length %d", len);
    if (len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING)
        CHECK(lib[len] == 0 && (int)strlen(lib) == len,
              "library version not terminated at length %d", len);

    char name[MPI_MAX_PROCESSOR_NAME];
    len = -1;
    memset(name, 'x', sizeof name);
    MPI_CHK(MPI_Get_processor_name(name, &len));
    CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME, "processor name length %d", len);
    if (len > 0 && len < MPI_MAX_PROCESSOR_NAME)
        CHECK(name[len] == 0 && (int)strlen(name) == len,
              "processor name not terminated at length %d", len);

    int provided = -1;
    MPI_CHK(MPI_Query_thread(&provided));
    CHECK(provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED ||
          provided == MPI_THREAD_SERIALIZED || provided == MPI_THREAD_MULTIPLE,
          "MPI_Query_thread gave %d", provided);
    flag = -1;
    MPI_CHK(MPI_Is_thread_main(&flag));
    CHECK(flag == 1, "MPI_Is_thread_main gave %d in the main thread", flag);

    /* Wtime: never goes back, follows a sleep; Wtick: a positive resolution. */
    double tick = MPI_Wtick();
    CHECK(tick > 0.0 && tick < 1.0, "MPI_Wtick %g", tick);
    double prev = MPI_Wtime(), start = prev;
    for (int i = 0; i < 100000; i++) {
        double now = MPI_Wtime();
        if (now < prev) {
            CHECK(now >= prev, "MPI_Wtime went back from %.9f to %.9f", prev, now);
            break;
        }
        prev = now;
    }
    start = MPI_Wtime();
    t_sleep_ms(50);
    double slept = MPI_Wtime() - start;
    CHECK(slept >= 0.045 && slept < 10.0, "50 ms sleep measured as %g s", slept);

    MPI_Barrier(MPI_COMM_WORLD);
    int rc = t_finish();

    /* After MPI_Finalize: both queries still work, both true. */
    flag = -1;
    MPI_Finalized(&flag);
    if (flag != 1) {
        fprintf(stderr, "[rank %d] MPI_Finalized after Finalize gave %d\n", t_rank, flag);
        rc = 1;
    }
    flag = -1;
    MPI_Initialized(&flag);
    if (flag != 1) {
        fprintf(stderr, "[rank %d] MPI_Initialized after Finalize gave %d\n", t_rank, flag);
        rc = 1;
    }
    return rc;
}
