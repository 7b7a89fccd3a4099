/* coll_hier.h: what the node-aware collective tests (coll_hier.c,
 * coll_hier_a2a.c) share: the element types (one int; 2 ints at offsets
 * 0 and 2 of an extent of 4), buffers pre-filled with holes, the
 * simulated placements by name, and the communicators every check runs
 * on. Include after common.h. */
#ifndef COLL_HIER_H
#define COLL_HIER_H

#include <stdbool.h>

#define HOLE (-7)

typedef struct {
    MPI_Datatype dt;
    int per;    /* ints of data in one element */
    int stride; /* extent in ints */
    const char *name;
} ty;

static ty t_int, t_vec;

/* A type pair: send type, receive type, receive elements per send one. */
typedef struct { const ty *st, *rt; int rmul; } pair;

/* Offset in ints of data int j of an element of t. */
static inline int off(const ty *t, int j) { return t->per == 1 ? 0 : 2 * j; }

/* n ints, all HOLE (at least one, so that empty buffers are not NULL). */
static inline int *alloc_ints(long n)
{
    int *b = t_malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    for (long i = 0; i < n; i++) b[i] = HOLE;
    return b;
}

static inline void hier_types(void)
{
    MPI_Datatype tmp;
    MPI_Type_vector(2, 1, 2, MPI_INT, &tmp);
    MPI_Type_create_resized(tmp, 0, 4 * (MPI_Aint)sizeof(int), &t_vec.dt);
    MPI_Type_free(&tmp);
    MPI_Type_commit(&t_vec.dt);
    t_vec.per = 2;
    t_vec.stride = 4;
    t_vec.name = "vec";
    t_int = (ty){MPI_INT, 1, 1, "int"};
}

/* args, before MPI_Init (dmpi reads the variables there; other MPIs
 * ignore them): 2x2, rr3 or mixed set the simulated placement unless the
 * environment has one; unit=N sets DMPI_COLL_HIER_ALLTOALL. */
static inline void hier_settings(int argc, char **argv)
{
    static const char *const names[][2] = {{"2x2", "(vector,(0,2,2))"},
                                           {"rr3", "(vector,(0,3,1))"},
                                           {"mixed", "(vector,(0,1,3),(1,1,1))"}};
    for (int i = 1; i < argc; i++) {
        for (size_t j = 0; j < sizeof names / sizeof names[0]; j++)
            if (!strcmp(argv[i], names[j][0])) setenv("DMPI_PROCESS_MAPPING", names[j][1], 0);
        if (!strncmp(argv[i], "unit=", 5)) setenv("DMPI_COLL_HIER_ALLTOALL", argv[i] + 5, 1);
    }
}

/* test on MPI_COMM_WORLD, on a split of it with the ranks shuffled (odd
 * ranks first, each half reversed) and on about two thirds of the ranks,
 * rotated. */
static inline void hier_comms(void (*test)(MPI_Comm c, const char *cname))
{
    test(MPI_COMM_WORLD, "world");
    MPI_Comm sh;
    int key = (t_rank % 2 ? 0 : t_size) + (t_size - t_rank);
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, 0, key, &sh));
    test(sh, "shuffled");
    MPI_CHK(MPI_Comm_free(&sh));
    MPI_Comm part;
    int color = t_rank % 3 == 1 ? MPI_UNDEFINED : 0;
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, color, (t_rank + 2) % t_size, &part));
    if (part != MPI_COMM_NULL) {
        test(part, "part");
        MPI_CHK(MPI_Comm_free(&part));
    }
}

#endif
