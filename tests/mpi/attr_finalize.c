/* attr_finalize: MPI_Finalize deletes the attributes of MPI_COMM_SELF first
 * (MPI 4.1 section 11.2.4), in the reverse order of setting, while MPI is
 * still fully usable. The callbacks run inside MPI_Finalize, after the
 * error count was summed, so this program checks their log after
 * MPI_Finalize and exits 1 (with a message) when it is wrong. */
#include "common.h"

static int order[8], norder, finalized_inside = -1, world_size_inside = -1;

static int del(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)keyval, (void)extra;
    if (comm != MPI_COMM_SELF) return MPI_ERR_OTHER;
    if (norder < 8) order[norder++] = (int)(intptr_t)value;
    MPI_Finalized(&finalized_inside);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size_inside);
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int k[3];
    for (int i = 0; i < 3; i++) {
        MPI_CHK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del, &k[i], NULL));
        MPI_CHK(MPI_Comm_set_attr(MPI_COMM_SELF, k[i], (void *)(intptr_t)(i + 1)));
    }
    /* the keyvals may be freed: the attributes keep them alive */
    for (int i = 0; i < 3; i++) MPI_CHK(MPI_Comm_free_keyval(&k[i]));
    int rank = t_rank, rc = t_finish();
    int ok = norder == 3 && order[0] == 3 && order[1] == 2 && order[2] == 1 &&
             finalized_inside == 0 && world_size_inside == t_size;
    if (!ok) {
        fprintf(stderr,
                "[rank %d] attr_finalize: %d delete callbacks (order %d %d %d, want 3 2 1), "
                "MPI_Finalized inside %d, world size inside %d\n",
                rank, norder, order[0], order[1], order[2], finalized_inside, world_size_inside);
        return 1;
    }
    return rc;
}
