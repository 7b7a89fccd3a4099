/* Communicator construction and comparison (core/comm_ops.c), used by
 * api/comm.c. Every constructor is collective over the parent (except
 * create_group: over the new group), returns an MPI error class, and sets
 * *out to NULL for processes that get MPI_COMM_NULL. New communicators
 * inherit the parent's error handler. */
#ifndef DMPI_COMM_OPS_H
#define DMPI_COMM_OPS_H

#include "core/dmpi.h"

int dmpi_comm_dup(dmpi_comm *parent, dmpi_comm **out);
/* MPI_Comm_idup (core/comm_idup.c), in two steps: dmpi_comm_dup_shell
 * makes the duplicate at once, local and needing no other process (same
 * groups, context ids DMPI_CTX_PENDING), for the caller to copy attributes
 * and hints onto; dmpi_comm_idup_start then starts the nonblocking
 * agreement of its context ids over parent and returns the request, which
 * holds a reference on the shell and sets its ids when it completes. */
#define DMPI_CTX_PENDING 0xfffffffcu
int dmpi_comm_dup_shell(dmpi_comm *parent, dmpi_comm **out);
int dmpi_comm_idup_start(dmpi_comm *parent, dmpi_comm *shell, dmpi_request **out);
/* color MPI_UNDEFINED: take part, get NULL. Ranks of equal color are
 * ordered by (key, rank in parent). */
int dmpi_comm_split(dmpi_comm *parent, int color, int key, dmpi_comm **out);
/* Split by node (MPI_COMM_TYPE_SHARED); undefined: take part, get NULL. */
int dmpi_comm_split_node(dmpi_comm *parent, bool undefined, int key, dmpi_comm **out);
/* comm_hw.c: by the instance of hardware resource type `type` (hwtopo.h)
 * this process is restricted to on its node (NULL if none); and
 * MPI_COMM_TYPE_HW_UNGUIDED's coarsest strict subset of parent, and its
 * level's mpi_hw_resource_type value (NULL with no communicator). */
int dmpi_comm_split_hw(dmpi_comm *parent, int type, int key, dmpi_comm **out);
int dmpi_comm_split_unguided(dmpi_comm *parent, int key, dmpi_comm **out, const char **type);
/* Every member of c (an intracommunicator) is on this rank's node. */
bool dmpi_comm_on_one_node(dmpi_comm *c);
/* g must be a subset of parent's (local) group (checked by the caller);
 * on an intercommunicator the result is one between the two sides' g. */
int dmpi_comm_create(dmpi_comm *parent, dmpi_group *g, dmpi_comm **out);
int dmpi_comm_create_group(dmpi_comm *parent, dmpi_group *g, int tag, dmpi_comm **out);
/* MPI_Comm_create_from_group and MPI_Intercomm_create_from_groups: g (lg)
 * contains the caller; the agreement runs in MPI_COMM_WORLD's collective
 * context with a tag from the string tag; the result gets error handler e.
 * remote_leader (a rank in rg) matters at local_leader only. */
int dmpi_comm_from_group(dmpi_group *g, const char *stringtag, dmpi_errhandler *e,
                         dmpi_comm **out);
int dmpi_intercomm_from_groups(dmpi_group *lg, int local_leader, dmpi_group *rg,
                               int remote_leader, const char *stringtag, dmpi_errhandler *e,
                               dmpi_comm **out);
uint32_t dmpi_stringtag_hash(const char *s);
/* A communicator over g (retained) with context ctx and the error handler
 * of parent; on failure the context id is given back. */
int dmpi_comm_make(dmpi_comm *parent, dmpi_group *g, uint32_t ctx, dmpi_comm **out);
/* MPI_Comm_disconnect's wait (collective over c): a barrier, then progress
 * until no request refers to c any more; references that no progress
 * moves for half a second (inactive persistent requests) are left. */
int dmpi_comm_quiesce(dmpi_comm *c);
/* MPI_IDENT, MPI_CONGRUENT, MPI_SIMILAR or MPI_UNEQUAL. */
int dmpi_comm_compare(const dmpi_comm *a, const dmpi_comm *b);
/* Is every member of g a member of parent's group? */
bool dmpi_group_subset_of(const dmpi_group *g, const dmpi_group *parent);

/* ------------------------------------------------ per-communicator extras
 * Every communicator made by dmpi_comm_new (and the two predefined ones)
 * carries these, behind the public struct. */
enum {
    DMPI_HINT_NO_ANY_TAG, DMPI_HINT_NO_ANY_SOURCE, DMPI_HINT_EXACT_LENGTH,
    DMPI_HINT_ALLOW_OVERTAKING, DMPI_NHINTS
};
typedef struct dmpi_comm_ext {
    dmpi_comm *local;           /* intercommunicators: the local intracommunicator
                                   (own context; owned, released with the comm) */
    bool hints[DMPI_NHINTS];    /* the mpi_assert_* info hints (default false) */
    struct dmpi_session *session; /* the session it derives from (retained), or NULL */
} dmpi_comm_ext;

/* The session c derives from (NULL: none, or the World model), and
 * setting it (retained; the old one released). */
struct dmpi_session *dmpi_comm_session(dmpi_comm *c);
void dmpi_comm_set_session(dmpi_comm *c, struct dmpi_session *s);
/* The extras of c; NULL for a temporary copy (marked builtin) made inside
 * the library. */
dmpi_comm_ext *dmpi_comm_ext_of(dmpi_comm *c);
/* Info key of hint i ("mpi_assert_no_any_tag", ...). */
const char *dmpi_comm_hint_key(int i);
/* A point-to-point receive or probe on c from src with tag: NULL when
 * allowed, else why it is erroneous (a wildcard that c's
 * mpi_assert_no_any_source / mpi_assert_no_any_tag hint rules out), with
 * the error class (MPI_ERR_RANK, MPI_ERR_TAG) in *cls. What the hints do
 * is in docs/matching.md: mpi_assert_allow_overtaking and
 * mpi_assert_exact_length are accepted and reported, and change nothing. */
const char *dmpi_comm_wildcard_refused(dmpi_comm *c, int src, int tag, int *cls);
/* An intercommunicator over local group lg and remote group rg with
 * context ctx, whose local intracommunicator (context lctx) is made here;
 * the error handler comes from `like`. On failure both ids are given back. */
int dmpi_intercomm_new(dmpi_comm *like, dmpi_group *lg, dmpi_group *rg, uint32_t ctx,
                       uint32_t lctx, dmpi_comm **out);


#endif
