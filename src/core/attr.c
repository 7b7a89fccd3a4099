/* Attribute caching: the keyval table, the attribute lists of objects and
 * their copy/delete callbacks, and the hooks that communicators, datatypes
 * and MPI_Finalize call. Interface in core/attr.h.
 *
 * A keyval is counted: one reference for the user's handle and one per
 * attribute that uses it, so a keyval freed while in use lives on until its
 * last attribute is deleted. Keyval numbers encode a table slot and a
 * generation, so a freed number is recognised as stale when its slot is
 * reused. An attribute list is a chain of nodes, most recently set first:
 * deleting everything goes in reverse order of setting (which MPI_Finalize
 * needs for MPI_COMM_SELF) and a copy keeps the order. */
#include "core/attr.h"
#include "core/topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- keyvals */
typedef struct keyval {
    dmpi_attr_kind kind;
    int refs;                 /* user handle + attributes using it */
    bool user_freed;
    unsigned gen;             /* generation of the slot when created */
    dmpi_attr_copy_fn *copy;  /* 0: null copy, 1: dup */
    dmpi_attr_delete_fn *del; /* 0: null delete */
    void *extra;
} keyval;

/* Keyval numbers: KV_BASE + gen * KV_SLOTS + slot. Far above the predefined
 * keys (501..605) and never MPI_KEYVAL_INVALID (0). */
#define KV_BASE 0x10000
#define KV_SLOTS (1 << 20)
#define KV_GENS 1000

static struct {
    keyval *kv;
    unsigned gen;
} *kv_table;
static int kv_count, kv_cap;

static int kv_number(int slot) { return KV_BASE + (int)kv_table[slot].gen * KV_SLOTS + slot; }

static keyval *kv_lookup(int id)
{
    if (id < KV_BASE) return NULL;
    int slot = (id - KV_BASE) % KV_SLOTS;
    unsigned gen = (unsigned)((id - KV_BASE) / KV_SLOTS);
    if (slot >= kv_count || kv_table[slot].gen != gen) return NULL;
    return kv_table[slot].kv;
}

static void kv_release(keyval *kv, int id)
{
    if (--kv->refs > 0) return;
    int slot = (id - KV_BASE) % KV_SLOTS;
    free(kv);
    kv_table[slot].kv = NULL;
    kv_table[slot].gen = (kv_table[slot].gen + 1) % KV_GENS;
}

int dmpi_keyval_create(dmpi_attr_kind kind, dmpi_attr_copy_fn *copy, dmpi_attr_delete_fn *del,
                       void *extra_state, int *id)
{
    int slot = 0;
    while (slot < kv_count && kv_table[slot].kv) slot++;
    if (slot == kv_count) {
        if (kv_count == KV_SLOTS) return MPI_ERR_NO_MEM;
        if (kv_count == kv_cap) {
            int cap = kv_cap ? 2 * kv_cap : 16;
            void *t = realloc(kv_table, (size_t)cap * sizeof *kv_table);
            if (!t) return MPI_ERR_NO_MEM;
            kv_table = t;
            kv_cap = cap;
        }
        kv_table[kv_count].kv = NULL;
        kv_table[kv_count].gen = 0;
        kv_count++;
    }
    keyval *kv = calloc(1, sizeof *kv);
    if (!kv) return MPI_ERR_NO_MEM;
    *kv = (keyval){kind, 1, false, kv_table[slot].gen, copy, del, extra_state};
    kv_table[slot].kv = kv;
    *id = kv_number(slot);
    return MPI_SUCCESS;
}

bool dmpi_keyval_predefined(dmpi_attr_kind kind, int id)
{
    if (kind == DMPI_ATTR_COMM) return id >= MPI_TAG_UB && id <= MPI_UNIVERSE_SIZE;
    if (kind == DMPI_ATTR_WIN) return id >= MPI_WIN_BASE && id <= MPI_WIN_MODEL;
    return false;
}

static const char *kind_name(dmpi_attr_kind kind)
{
    return kind == DMPI_ATTR_COMM ? "communicator" : kind == DMPI_ATTR_TYPE ? "datatype" : "window";
}

const char *dmpi_keyval_problem(dmpi_attr_kind kind, int id, bool for_update, char *buf,
                                size_t len)
{
    if (id == MPI_KEYVAL_INVALID) return "the keyval is MPI_KEYVAL_INVALID";
    if (dmpi_keyval_predefined(kind, id))
        return for_update ? "predefined attributes cannot be set or deleted" : NULL;
    for (int k = DMPI_ATTR_COMM; k <= DMPI_ATTR_WIN; k++)
        if (k != (int)kind && dmpi_keyval_predefined(k, id)) {
            snprintf(buf, len, "keyval %d is a predefined %s attribute, not a %s one", id,
                     kind_name(k), kind_name(kind));
            return buf;
        }
    keyval *kv = kv_lookup(id);
    if (!kv) {
        snprintf(buf, len, "keyval %d does not exist (never created, or freed)", id);
        return buf;
    }
    if (kv->kind != kind) {
        snprintf(buf, len, "keyval %d was created for %s attributes, not %s ones", id,
                 kind_name(kv->kind), kind_name(kind));
        return buf;
    }
    /* A keyval the user freed while attributes still use it stays valid
     * until the last of them is deleted (MPI 4.1 section 7.7.2): the
     * attributes can still be read, replaced and deleted through the key. */
    return NULL;
}

const char *dmpi_keyval_free_problem(dmpi_attr_kind kind, int id, char *buf, size_t len)
{
    const char *why = dmpi_keyval_problem(kind, id, true, buf, len);
    if (why) return why;
    if (kv_lookup(id)->user_freed) {
        snprintf(buf, len, "keyval %d has been freed already", id);
        return buf;
    }
    return NULL;
}

int dmpi_keyval_free(dmpi_attr_kind kind, int id)
{
    char buf[160];
    if (dmpi_keyval_free_problem(kind, id, buf, sizeof buf)) return MPI_ERR_KEYVAL;
    keyval *kv = kv_lookup(id);
    kv->user_freed = true;
    kv_release(kv, id);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------- attribute lists */
typedef struct attr {
    struct attr *next;
    keyval *kv;
    int id;
    void *value;
    bool busy;                /* its delete callback is running */
} attr;

static attr *find(attr *head, int id)
{
    while (head && head->id != id) head = head->next;
    return head;
}

static void unlink_node(void **list, attr *n)
{
    for (attr **p = (attr **)list; *p; p = &(*p)->next)
        if (*p == n) {
            *p = n->next;
            return;
        }
}

/* Runs n's delete callback (n stays in the list meanwhile). */
static int call_delete(attr *n, void *handle)
{
    dmpi_attr_delete_fn *del = n->kv->del;
    if ((uintptr_t)del <= 1) return MPI_SUCCESS;
    n->busy = true;
    int rc;
    /* Called through its real type (the handle types differ). */
    switch (n->kv->kind) {
    case DMPI_ATTR_COMM:
        rc = ((MPI_Comm_delete_attr_function *)del)((MPI_Comm)handle, n->id, n->value,
                                                    n->kv->extra);
        break;
    case DMPI_ATTR_TYPE:
        rc = ((MPI_Type_delete_attr_function *)del)((MPI_Datatype)handle, n->id, n->value,
                                                    n->kv->extra);
        break;
    default:
        rc = ((MPI_Win_delete_attr_function *)del)((MPI_Win)handle, n->id, n->value,
                                                   n->kv->extra);
        break;
    }
    n->busy = false;
    return rc;
}

static int call_copy(const attr *a, void *handle, void *out, int *flag)
{
    keyval *kv = a->kv;
    switch (kv->kind) {
    case DMPI_ATTR_COMM:
        return ((MPI_Comm_copy_attr_function *)kv->copy)((MPI_Comm)handle, a->id, kv->extra,
                                                         a->value, out, flag);
    case DMPI_ATTR_TYPE:
        return ((MPI_Type_copy_attr_function *)kv->copy)((MPI_Datatype)handle, a->id,
                                                         kv->extra, a->value, out, flag);
    default:
        return ((MPI_Win_copy_attr_function *)kv->copy)((MPI_Win)handle, a->id, kv->extra,
                                                        a->value, out, flag);
    }
}

static void drop(void **list, attr *n)
{
    unlink_node(list, n);
    kv_release(n->kv, n->id);
    free(n);
}

static int push(void **list, keyval *kv, int id, void *value)
{
    attr *n = malloc(sizeof *n);
    if (!n) return MPI_ERR_NO_MEM;
    *n = (attr){*(attr **)list, kv, id, value, false};
    kv->refs++;
    *list = n;
    return MPI_SUCCESS;
}

int dmpi_attr_set(void **list, void *handle, int id, void *value)
{
    attr *n = find(*list, id);
    if (!n) return push(list, kv_lookup(id), id, value);
    if (n->busy) return MPI_ERR_KEYVAL;
    /* As if the old value were deleted first, then the new one set. */
    int rc = call_delete(n, handle);
    if (rc != MPI_SUCCESS) return rc;
    unlink_node(list, n);
    n->value = value;
    n->next = *(attr **)list;
    *list = n;
    return MPI_SUCCESS;
}

void dmpi_attr_get(void *const *list, int id, void **value, int *flag)
{
    attr *n = list ? find(*list, id) : NULL;
    *flag = n != NULL;
    if (n) *value = n->value;
}

int dmpi_attr_delete(void **list, void *handle, int id)
{
    attr *n = find(*list, id);
    if (!n) return MPI_SUCCESS; /* nothing set: nothing to do */
    if (n->busy) return MPI_ERR_KEYVAL;
    int rc = call_delete(n, handle);
    if (rc == MPI_SUCCESS) drop(list, n);
    return rc;
}

int dmpi_attr_delete_all(void **list, void *handle)
{
    for (;;) {
        attr *n = *list;
        while (n && n->busy) n = n->next;
        if (!n) return MPI_SUCCESS;
        int rc = call_delete(n, handle);
        if (rc != MPI_SUCCESS) return rc;
        drop(list, n);
    }
}

/* Empties a list without callbacks (after a failed copy's cleanup). */
static void drop_all(void **list)
{
    while (*list) drop(list, *list);
}

int dmpi_attr_copy_all(void *const *from, void *old_handle, void **to, void *new_handle)
{
    int n = 0;
    for (attr *a = *from; a; a = a->next) n++;
    if (n == 0) return MPI_SUCCESS;
    attr **v = malloc((size_t)n * sizeof *v);
    if (!v) return MPI_ERR_NO_MEM;
    n = 0;
    for (attr *a = *from; a; a = a->next) v[n++] = a;
    int rc = MPI_SUCCESS;
    for (int i = n - 1; i >= 0 && rc == MPI_SUCCESS; i--) { /* oldest first */
        attr *a = v[i], *b = *from;
        while (b && b != a) b = b->next;
        if (!b) continue; /* a callback deleted it meanwhile */
        void *out = NULL;
        int flag = 0;
        if ((uintptr_t)a->kv->copy == 0) continue;
        if ((uintptr_t)a->kv->copy == 1) {
            out = a->value;
            flag = 1;
        } else {
            rc = call_copy(a, old_handle, &out, &flag);
        }
        if (rc == MPI_SUCCESS && flag) rc = push(to, a->kv, a->id, out);
    }
    free(v);
    if (rc != MPI_SUCCESS) {
        dmpi_attr_delete_all(to, new_handle);
        drop_all(to);
    }
    return rc;
}

/* ------------------------------------------------------------ communicators */
int dmpi_comm_attr_copy(dmpi_comm *from, dmpi_comm *to)
{
    return dmpi_attr_copy_all(&from->attrs, (void *)from->handle, &to->attrs, (void *)to->handle);
}

int dmpi_comm_attr_delete_all(dmpi_comm *c)
{
    int rc = dmpi_attr_delete_all(&c->attrs, (void *)c->handle);
    /* MPI_Comm_free calls us just before the release; when that release
     * ends the object, its topology goes too (dmpi_comm_release does not
     * know about topologies). */
    if (rc == MPI_SUCCESS && c->refcount == 1 && !c->builtin) dmpi_topo_release(c);
    return rc;
}

/* -------------------------------------------------------------- datatypes */
void **dmpi_type_attr_slot(dmpi_datatype *dt, bool create)
{
    (void)create; /* every datatype object has its slot */
    return &dt->attrs;
}

int dmpi_type_attr_copy(dmpi_datatype *from, dmpi_datatype *to)
{
    return dmpi_attr_copy_all(&from->attrs, (void *)from->handle, &to->attrs, (void *)to->handle);
}

int dmpi_type_attr_delete_all(dmpi_datatype *dt)
{
    return dmpi_attr_delete_all(&dt->attrs, (void *)dt->handle);
}

/* ------------------------------------------------------------- finalize */
int dmpi_attr_finalize(void)
{
    int rc = dmpi_attr_delete_all(&dmpi_comm_self_obj.attrs, (void *)MPI_COMM_SELF);
    int rc2 = dmpi_attr_delete_all(&dmpi_comm_world_obj.attrs, (void *)MPI_COMM_WORLD);
    drop_all(&dmpi_comm_self_obj.attrs);
    drop_all(&dmpi_comm_world_obj.attrs);
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* The keyvals outlive MPI_Finalize while a session keeps the runtime up:
 * its communicators' attributes still use them (their delete callbacks
 * run when those are freed). */
void dmpi_attr_free_keyvals(void)
{
    for (int i = 0; i < kv_count; i++) free(kv_table[i].kv);
    free(kv_table);
    kv_table = NULL;
    kv_count = kv_cap = 0;
}
