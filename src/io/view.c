/* File views (MPI 4.1 section 14.3): setting one (checks of the etype, the
 * filetype and the data representation), and mapping the view stream to
 * file bytes. The filetype is tiled from the displacement at multiples of
 * its extent; the datatype engine's iovec walker (dmpi_dt_iov), run on the
 * filetype with the tile's file position as its "address", gives the file
 * pieces of any byte window of the stream, so holes, resized and nested
 * types all map without a copy of the engine. */
#include "io/io.h"
#include "core/dt_layout.h"

#include <stdio.h>
#include <string.h>

#define NIOV 256

int dmpi_view_map(const dmpi_file *f, MPI_Offset vpos, MPI_Offset len, MPI_Offset *off,
                  MPI_Offset *plen, int max, MPI_Offset *covered)
{
    const dmpi_datatype *ft = f->filetype;
    MPI_Count S = ft->size;
    MPI_Aint X = ft->extent;
    *covered = 0;
    if (len <= 0 || max <= 0) return 0;
    if (ft->contiguous && S == X) {
        off[0] = f->disp + ft->true_lb + vpos;
        plen[0] = len;
        *covered = len;
        return 1;
    }
    MPI_Offset e = vpos / S, r = vpos % S;
    MPI_Count ecount = (r + len + S - 1) / S;
    struct iovec iov[NIOV];
    if (max > NIOV) max = NIOV;
    MPI_Count cov = 0;
    uintptr_t base = (uintptr_t)(f->disp + e * X);
    int n = dmpi_dt_iov((const void *)base, ecount, ft, r, iov, max, &cov);
    int k = 0;
    MPI_Offset done = 0;
    for (int i = 0; i < n && done < len; i++) {
        MPI_Offset l = (MPI_Offset)iov[i].iov_len;
        if (l > len - done) l = len - done;
        off[k] = (MPI_Offset)(intptr_t)iov[i].iov_base;
        plen[k++] = l;
        done += l;
    }
    *covered = done;
    return k;
}

MPI_Offset dmpi_view_byte(const dmpi_file *f, MPI_Offset vpos)
{
    MPI_Offset off = 0, len = 0, cov;
    dmpi_view_map(f, vpos, 1, &off, &len, 1, &cov);
    return off;
}

MPI_Offset dmpi_view_bytes_before(const dmpi_file *f, MPI_Offset fsize)
{
    const dmpi_datatype *ft = f->filetype;
    if (fsize <= f->disp) return 0;
    /* the view is monotonic: the largest B whose byte B-1 lies before fsize */
    MPI_Offset lo = 0, hi = ((fsize - f->disp) / ft->extent + 2) * ft->size;
    while (lo < hi) {
        MPI_Offset mid = lo + (hi - lo + 1) / 2;
        if (dmpi_view_byte(f, mid - 1) < fsize) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Filetype rules: data at non-negative, nondecreasing displacements, and
 * tiles that do not overlap. */
static int check_filetype(dmpi_datatype *ft, char *why)
{
    if (ft->size == 0) {
        snprintf(why, IO_WHY, "the filetype holds no data");
        return MPI_ERR_TYPE;
    }
    if (ft->contiguous && ft->size == ft->extent) {
        if (ft->true_lb < 0) goto negative;
        return MPI_SUCCESS;
    }
    struct iovec iov[NIOV];
    MPI_Count at = 0, cov;
    intptr_t first = 0, end = 0;
    bool any = false;
    while (at < ft->size) {
        int n = dmpi_dt_iov(NULL, 1, ft, at, iov, NIOV, &cov);
        if (n <= 0 || cov <= 0) break;
        for (int i = 0; i < n; i++) {
            intptr_t a = (intptr_t)iov[i].iov_base;
            if (a < 0) goto negative;
            if (any && a < end) {
                snprintf(why, IO_WHY, "the filetype's displacements are not monotonically "
                         "nondecreasing (data at byte %ld after data up to byte %ld)",
                         (long)a, (long)end);
                return MPI_ERR_TYPE;
            }
            if (!any) first = a;
            any = true;
            end = a + (intptr_t)iov[i].iov_len;
        }
        at += cov;
    }
    if (ft->extent < end - first) {
        snprintf(why, IO_WHY, "the filetype's extent (%ld) is smaller than the span of its data "
                 "(%ld bytes): copies of it would overlap", (long)ft->extent, (long)(end - first));
        return MPI_ERR_TYPE;
    }
    return MPI_SUCCESS;
negative:
    snprintf(why, IO_WHY, "the filetype has data at a negative displacement");
    return MPI_ERR_TYPE;
}

int dmpi_file_set_view(dmpi_file *f, MPI_Offset disp, dmpi_datatype *etype,
                       dmpi_datatype *filetype, const char *datarep, char *why)
{
    int rc = MPI_SUCCESS, rep = IO_REP_NATIVE;
    dmpi_datarep *urep = NULL;
    if (etype->size == 0) {
        snprintf(why, IO_WHY, "the etype holds no data");
        rc = MPI_ERR_TYPE;
    } else if (etype->extent <= 0 || etype->lb < 0) {
        snprintf(why, IO_WHY, "the etype must have a positive extent and no negative lower bound");
        rc = MPI_ERR_TYPE;
    } else if (filetype->size % etype->size) {
        snprintf(why, IO_WHY, "the filetype (%lld bytes of data) is not made of whole etypes "
                 "(%lld bytes)", (long long)filetype->size, (long long)etype->size);
        rc = MPI_ERR_TYPE;
    } else {
        rc = check_filetype(filetype, why);
    }
    if (rc == MPI_SUCCESS) {
        if (!strcmp(datarep, "native") || !strcmp(datarep, "internal")) rep = IO_REP_NATIVE;
        else if (!strcmp(datarep, "external32")) rep = IO_REP_EXTERNAL32;
        else if ((urep = dmpi_datarep_find(datarep))) rep = IO_REP_USER;
        else {
            snprintf(why, IO_WHY, "unknown data representation '%s'", datarep);
            rc = MPI_ERR_UNSUPPORTED_DATAREP;
        }
    }
    dmpi_file probe = *f; /* the new representation, for the checks */
    probe.rep = rep;
    probe.urep = urep;
    if (rc == MPI_SUCCESS) rc = dmpi_datarep_check(&probe, etype, why);
    if (rc == MPI_SUCCESS) rc = dmpi_datarep_check(&probe, filetype, why);
    MPI_Offset newdisp = disp;
    if (rc == MPI_SUCCESS && disp == MPI_DISPLACEMENT_CURRENT) {
        MPI_Offset sp = 0;
        rc = dmpi_sp_fetch_add(f, 0, &sp, why);
        newdisp = dmpi_view_byte(f, sp * f->etype->size);
    }
    int all = dmpi_io_agree(f->comm, rc, NULL);
    if (all != MPI_SUCCESS) {
        if (rc == MPI_SUCCESS) snprintf(why, IO_WHY, "another process gave an invalid view");
        return all;
    }
    dmpi_dt_retain(etype);
    dmpi_dt_retain(filetype);
    dmpi_dt_release(f->etype);
    dmpi_dt_release(f->filetype);
    f->etype = etype;
    f->filetype = filetype;
    f->disp = newdisp;
    f->rep = rep;
    f->urep = urep;
    snprintf(f->rep_name, sizeof f->rep_name, "%s", datarep);
    f->pos = 0;
    rc = f->comm->rank == 0 ? dmpi_sp_set(f, 0, why) : MPI_SUCCESS;
    return dmpi_io_agree(f->comm, rc, NULL);
}

int dmpi_file_type_extent(const dmpi_file *f, dmpi_datatype *dt, MPI_Count *extent)
{
    *extent = dt->extent;
    if (f->rep == IO_REP_EXTERNAL32 && dt->size == dt->extent)
        *extent = dt_external_size(dt); /* views allow only equal sizes anyway */
    else if (f->rep == IO_REP_USER && f->urep->extent_fn && dt->builtin) {
        MPI_Aint e = 0;
        int rc = f->urep->extent_fn(dt->handle, &e, f->urep->extra);
        if (rc != MPI_SUCCESS) return rc;
        *extent = e;
    }
    return MPI_SUCCESS;
}
