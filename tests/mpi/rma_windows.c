/* rma_windows.c: windows of every flavor (create on malloc memory, create on
 * MPI_Alloc_mem memory, allocate, allocate_shared, dynamic) and their _c
 * forms: the predefined attributes, group, name, info, and a ring of
 * MPI_Put/MPI_Get under fences with small and large (4 MiB) transfers. */
#include "common.h"

enum { F_CREATE, F_CREATE_ALLOCMEM, F_ALLOCATE, F_SHARED, F_DYNAMIC, F_CREATE_C, F_ALLOCATE_C,
       NFLAVORS };
static const char *const fname[NFLAVORS] = {"create", "create(Alloc_mem)", "allocate",
                                            "allocate_shared", "dynamic", "create_c",
                                            "allocate_c"};

/* A window of `bytes` bytes with displacement unit 1; *mem is my memory
 * (for dynamic windows: attached memory, *disp0 its address at `peer`). */
static MPI_Win make(int f, MPI_Aint bytes, char **mem, void **to_free)
{
    MPI_Win win = MPI_WIN_NULL;
    *to_free = NULL;
    switch (f) {
    case F_CREATE:
    case F_CREATE_C:
        *mem = t_malloc((size_t)bytes);
        *to_free = *mem;
        if (f == F_CREATE)
            MPI_CHK(MPI_Win_create(*mem, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        else
            MPI_CHK(MPI_Win_create_c(*mem, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        break;
    case F_CREATE_ALLOCMEM:
        MPI_CHK(MPI_Alloc_mem(bytes, MPI_INFO_NULL, mem));
        MPI_CHK(MPI_Win_create(*mem, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        break;
    case F_ALLOCATE:
        MPI_CHK(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, mem, &win));
        break;
    case F_ALLOCATE_C:
        MPI_CHK(MPI_Win_allocate_c(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, mem, &win));
        break;
    case F_SHARED:
        MPI_CHK(MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, mem, &win));
        break;
    case F_DYNAMIC:
        MPI_CHK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        *mem = t_malloc((size_t)bytes);
        *to_free = *mem;
        MPI_CHK(MPI_Win_attach(win, *mem, bytes));
        break;
    }
    return win;
}

static void check_attrs(MPI_Win win, int f, char *mem, MPI_Aint bytes)
{
    void *base = NULL;
    MPI_Aint *size = NULL;
    int *du = NULL, *flavor = NULL, *model = NULL, flag = 0;
    static const int want_flavor[NFLAVORS] = {
        MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE,
        MPI_WIN_FLAVOR_SHARED, MPI_WIN_FLAVOR_DYNAMIC, MPI_WIN_FLAVOR_CREATE,
        MPI_WIN_FLAVOR_ALLOCATE};
    MPI_CHK(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
    CHECK(flag, "%s: MPI_WIN_BASE not set", fname[f]);
    if (f != F_DYNAMIC)
        CHECK(base == mem, "%s: MPI_WIN_BASE %p, want %p", fname[f], base, (void *)mem);
    MPI_CHK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag));
    CHECK(flag && *size == (f == F_DYNAMIC ? 0 : bytes), "%s: MPI_WIN_SIZE %ld", fname[f],
          flag ? (long)*size : -1L);
    MPI_CHK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag));
    CHECK(flag && *du == 1, "%s: MPI_WIN_DISP_UNIT %d", fname[f], flag ? *du : -1);
    MPI_CHK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(flag && *flavor == want_flavor[f], "%s: MPI_WIN_CREATE_FLAVOR %d, want %d", fname[f],
          flag ? *flavor : -1, want_flavor[f]);
    MPI_CHK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    CHECK(flag && *model == MPI_WIN_UNIFIED, "%s: MPI_WIN_MODEL %d", fname[f], flag ? *model : -1);

    MPI_Group g, wg;
    int cmp = -1;
    MPI_CHK(MPI_Win_get_group(win, &g));
    MPI_CHK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MPI_CHK(MPI_Group_compare(g, wg, &cmp));
    CHECK(cmp == MPI_IDENT, "%s: window group is not the world group (%d)", fname[f], cmp);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);

    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MPI_CHK(MPI_Win_get_name(win, name, &len));
    CHECK(len == 0, "%s: new window has name '%s'", fname[f], name);
    MPI_CHK(MPI_Win_set_name(win, "my window"));
    MPI_CHK(MPI_Win_get_name(win, name, &len));
    CHECK(len == 9 && !strcmp(name, "my window"), "name '%s' (%d)", name, len);

    MPI_Info info;
    char val[MPI_MAX_INFO_VAL];
    MPI_CHK(MPI_Win_get_info(win, &info));
    MPI_CHK(MPI_Info_get_string(info, "accumulate_ordering", &(int){sizeof val}, val, &flag));
    if (flag)
        CHECK(!strcmp(val, "rar,raw,war,waw"), "%s: accumulate_ordering '%s'", fname[f], val);
    MPI_Info_free(&info);
}

/* Ring: rank r puts n bytes (pattern seed r) into rank r+1 at offset 0 and
 * gets n bytes from rank r-1 at offset n after that rank filled it. */
static void ring(MPI_Win win, int f, char *mem, MPI_Aint bytes, size_t n, MPI_Aint *remote)
{
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    char *src = t_malloc(n), *dst = t_malloc(n);
    t_fill(src, n, (unsigned)t_rank);
    memset(mem, 0, (size_t)bytes);
    t_fill(mem + n, n, 100u + (unsigned)t_rank);
    MPI_Aint d_right = f == F_DYNAMIC ? remote[right] : 0;
    MPI_Aint d_left = f == F_DYNAMIC ? remote[left] : 0;
    MPI_CHK(MPI_Win_fence(0, win));
    MPI_CHK(MPI_Put(src, (int)n, MPI_BYTE, right, d_right, (int)n, MPI_BYTE, win));
    MPI_CHK(MPI_Get(dst, (int)n, MPI_BYTE, left, d_left + (MPI_Aint)n, (int)n, MPI_BYTE, win));
    MPI_CHK(MPI_Win_fence(0, win));
    long bad = t_verify(mem, n, (unsigned)left);
    CHECK(bad < 0, "%s: %zu-byte put from rank %d wrong at byte %ld", fname[f], n, left, bad);
    bad = t_verify(dst, n, 100u + (unsigned)left);
    CHECK(bad < 0, "%s: %zu-byte get from rank %d wrong at byte %ld", fname[f], n, left, bad);
    free(src);
    free(dst);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    static const size_t sizes[] = {1, 8, 100, 4096, 65536 + 3, 4194304};
    const MPI_Aint bytes = 2 * 4194304;
    int one_node = t_world_one_node();
    for (int f = 0; f < NFLAVORS; f++) {
        if (f == F_SHARED && !one_node) continue; /* the ranks cannot share memory */
        char *mem = NULL;
        void *to_free;
        MPI_Win win = make(f, bytes, &mem, &to_free);
        check_attrs(win, f, mem, bytes);
        MPI_Aint *remote = t_malloc((size_t)t_size * sizeof(MPI_Aint)), mine;
        MPI_Get_address(mem, &mine);
        MPI_CHK(MPI_Allgather(&mine, 1, MPI_AINT, remote, 1, MPI_AINT, MPI_COMM_WORLD));
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            ring(win, f, mem, bytes, sizes[i], remote);
        MPI_CHK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
        if (f == F_DYNAMIC) MPI_CHK(MPI_Win_detach(win, mem));
        MPI_CHK(MPI_Win_free(&win));
        CHECK(win == MPI_WIN_NULL, "%s: MPI_Win_free did not set MPI_WIN_NULL", fname[f]);
        if (f == F_CREATE_ALLOCMEM) MPI_CHK(MPI_Free_mem(mem));
        free(to_free);
        free(remote);
    }
    return t_finish();
}
