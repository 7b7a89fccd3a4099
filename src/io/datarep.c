/* Data representations (MPI 4.1 section 14.5): "native" and "internal"
 * (the same bytes as memory), "external32" (big-endian, through the
 * datatype engine's external32 packer, core/dt_external.c) and the ones a
 * program registers with MPI_Register_datarep(_c), whose conversion
 * functions are called on the whole access.
 *
 * The view maps file bytes with the native layout of the etype and the
 * filetype, so a representation is accepted for a view only when every type
 * involved has the same size in the file as in memory (true of external32
 * for all basic types of the x86-64 and aarch64 ABIs, and of a registered
 * representation whose extent function returns the native extents);
 * otherwise MPI_File_set_view fails with MPI_ERR_UNSUPPORTED_DATAREP. */
#include "io/io.h"
#include "core/dt_layout.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dmpi_datarep **reps;
static int nreps;

dmpi_datarep *dmpi_datarep_find(const char *name)
{
    for (int i = 0; i < nreps; i++)
        if (!strcmp(reps[i]->name, name)) return reps[i];
    return NULL;
}

int dmpi_datarep_register(const char *name, MPI_Datarep_conversion_function *rd,
                          MPI_Datarep_conversion_function *wr,
                          MPI_Datarep_conversion_function_c *rd_c,
                          MPI_Datarep_conversion_function_c *wr_c,
                          MPI_Datarep_extent_function *ext, void *extra)
{
    if (!strcmp(name, "native") || !strcmp(name, "internal") || !strcmp(name, "external32") ||
        dmpi_datarep_find(name))
        return MPI_ERR_DUP_DATAREP;
    dmpi_datarep *r = calloc(1, sizeof *r);
    dmpi_datarep **t = realloc(reps, (size_t)(nreps + 1) * sizeof *t);
    if (!r || !t) {
        free(r);
        if (t) reps = t;
        return MPI_ERR_NO_MEM;
    }
    reps = t;
    snprintf(r->name, sizeof r->name, "%s", name);
    r->read_fn = rd;
    r->write_fn = wr;
    r->read_fn_c = rd_c;
    r->write_fn_c = wr_c;
    r->extent_fn = ext;
    r->extra = extra;
    reps[nreps++] = r;
    return MPI_SUCCESS;
}

int dmpi_datarep_check(const dmpi_file *f, dmpi_datatype *dt, char *why)
{
    if (f->rep == IO_REP_NATIVE) return MPI_SUCCESS;
    if (f->rep == IO_REP_EXTERNAL32) {
        if (dt_external_size(dt) == dt->size) return MPI_SUCCESS;
        snprintf(why, IO_WHY, "external32 views of types whose external32 size (%lld bytes) "
                 "differs from their size in memory (%lld) are not supported",
                 (long long)dt_external_size(dt), (long long)dt->size);
        return MPI_ERR_UNSUPPORTED_DATAREP;
    }
    if (!f->urep->extent_fn || dt->size == 0) return MPI_SUCCESS;
    dmpi_datatype *b = dt->basic ? dmpi_dt_builtin((MPI_Datatype)(intptr_t)dt->basic) : NULL;
    MPI_Aint e = -1;
    if (b && f->urep->extent_fn(b->handle, &e, f->urep->extra) == MPI_SUCCESS && e == b->extent)
        return MPI_SUCCESS;
    snprintf(why, IO_WHY, "data representation '%s': only types of one basic type whose file "
             "extent equals its extent in memory are supported", f->urep->name);
    return MPI_ERR_UNSUPPORTED_DATAREP;
}

/* Calls a registered conversion function on count elements, in pieces
 * that fit its int count when it has no large-count form. */
static int convert(const dmpi_file *f, bool to_file, void *buf, MPI_Count count,
                   dmpi_datatype *dt, void *stream)
{
    const dmpi_datarep *r = f->urep;
    MPI_Datarep_conversion_function_c *fc = to_file ? r->write_fn_c : r->read_fn_c;
    MPI_Datarep_conversion_function *fi = to_file ? r->write_fn : r->read_fn;
    if (fc) return fc(buf, dt->handle, count, stream, 0, r->extra);
    for (MPI_Count done = 0; done < count;) {
        int n = count - done > INT_MAX ? INT_MAX : (int)(count - done);
        int rc = fi(buf, dt->handle, n, stream, done, r->extra);
        if (rc != MPI_SUCCESS) return rc;
        done += n;
    }
    return MPI_SUCCESS;
}

static bool has_fn(const dmpi_file *f, bool to_file)
{
    const dmpi_datarep *r = f->urep;
    return to_file ? r->write_fn || r->write_fn_c : r->read_fn || r->read_fn_c;
}

int dmpi_datarep_to_file(const dmpi_file *f, const void *buf, MPI_Count count,
                         dmpi_datatype *dt, void *stream)
{
    if (f->rep == IO_REP_EXTERNAL32) {
        dt_external_pack(buf, count, dt, stream);
        return MPI_SUCCESS;
    }
    if (f->rep == IO_REP_USER && has_fn(f, true)) return convert(f, true, (void *)buf, count, dt, stream);
    dmpi_dt_pack(buf, count, dt, 0, stream, count * dt->size);
    return MPI_SUCCESS;
}

int dmpi_datarep_from_file(const dmpi_file *f, void *buf, MPI_Count count, dmpi_datatype *dt,
                           const void *stream)
{
    if (f->rep == IO_REP_EXTERNAL32) {
        dt_external_unpack(stream, count, dt, buf);
        return MPI_SUCCESS;
    }
    if (f->rep == IO_REP_USER && has_fn(f, false)) return convert(f, false, buf, count, dt, (void *)stream);
    dmpi_dt_unpack(buf, count, dt, 0, stream, count * dt->size);
    return MPI_SUCCESS;
}
