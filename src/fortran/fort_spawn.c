/* The Fortran MPI_Comm_spawn and MPI_Comm_spawn_multiple: their argument
 * vectors are arrays of blank-padded strings ended by a blank one, with
 * MPI_ARGV_NULL / MPI_ARGVS_NULL / MPI_ERRCODES_IGNORE as special
 * addresses. Converted to C's NULL-terminated vectors, then C is called. */
#include "fortran/fort_support.h"

#include <stdlib.h>
#include <string.h>

static bool blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ') return false;
    return true;
}

static void free_argv(char **argv)
{
    if (!argv) return;
    for (char **a = argv; *a; a++) free(*a);
    free(argv);
}

/* Strings at s, s + stride, ... (each len characters) up to the first
 * blank one; *ok is false when out of memory. */
static char **argv_in(const char *s, size_t stride, size_t len, bool *ok)
{
    size_t n = 0;
    while (!blank(s + n * stride, len)) n++;
    char **argv = calloc(n + 1, sizeof *argv);
    if (!argv) {
        *ok = false;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (!(argv[i] = dmpi_f_str_in(s + i * stride, len, false))) {
            free_argv(argv);
            *ok = false;
            return NULL;
        }
    return argv;
}

void pmpi_comm_spawn_(char *command, char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
                      MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes,
                      MPI_Fint *ierror, size_t command_len, size_t argv_len)
{
    bool ok = true;
    char *cmd = dmpi_f_str_in(command, command_len, false);
    char **cargv = argv == mpi_fortran_argv_null_ ? MPI_ARGV_NULL : argv_in(argv, argv_len, argv_len, &ok);
    int rc = MPI_ERR_NO_MEM;
    if (cmd && ok) {
        MPI_Comm inter = MPI_COMM_NULL;
        rc = MPI_Comm_spawn(cmd, cargv, *maxprocs, MPI_Info_fromint(*info), *root,
                            MPI_Comm_fromint(*comm), &inter, dmpi_f_errcodes(errcodes));
        if (rc == MPI_SUCCESS) *intercomm = MPI_Comm_toint(inter);
    }
    free(cmd);
    free_argv(cargv);
    dmpi_f_set_ierror(ierror, rc);
}
DMPI_F_ALIASES(mpi_comm_spawn)

/* array_of_argv is a Fortran array (count, *): the arguments of command
 * i are elements (i, 1), (i, 2), ... */
void pmpi_comm_spawn_multiple_(MPI_Fint *count, char *commands, char *array_of_argv,
                               MPI_Fint *maxprocs, MPI_Fint *infos, MPI_Fint *root,
                               MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes,
                               MPI_Fint *ierror, size_t commands_len, size_t argv_len)
{
    int n = *count > 0 ? *count : 0, rc = MPI_ERR_NO_MEM;
    bool ok = true;
    char **cmds = calloc((size_t)n + 1, sizeof *cmds);
    char ***argvs = array_of_argv == mpi_fortran_argvs_null_ ? NULL : calloc((size_t)n + 1, sizeof *argvs);
    MPI_Info *cinfos = calloc((size_t)n + 1, sizeof *cinfos);
    ok = cmds && cinfos && (argvs || array_of_argv == mpi_fortran_argvs_null_);
    for (int i = 0; ok && i < n; i++) {
        ok = (cmds[i] = dmpi_f_str_in(commands + (size_t)i * commands_len, commands_len, false));
        if (ok && argvs)
            argvs[i] = argv_in(array_of_argv + (size_t)i * argv_len, (size_t)n * argv_len, argv_len, &ok);
        cinfos[i] = MPI_Info_fromint(infos[i]);
    }
    if (ok) {
        MPI_Comm inter = MPI_COMM_NULL;
        rc = MPI_Comm_spawn_multiple(*count, cmds, argvs ? argvs : MPI_ARGVS_NULL, maxprocs, cinfos,
                                     *root, MPI_Comm_fromint(*comm), &inter,
                                     dmpi_f_errcodes(errcodes));
        if (rc == MPI_SUCCESS) *intercomm = MPI_Comm_toint(inter);
    }
    for (int i = 0; i < n; i++) {
        if (cmds) free(cmds[i]);
        if (argvs) free_argv(argvs[i]);
    }
    free(cmds);
    free(argvs);
    free(cinfos);
    dmpi_f_set_ierror(ierror, rc);
}
DMPI_F_ALIASES(mpi_comm_spawn_multiple)
