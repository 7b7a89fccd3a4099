/* The "external32" data representation (MPI 4.1 section 5.2.2 / 14.5.2):
 * every basic element big-endian with the standard's sizes (long and
 * unsigned long 4 bytes, wchar_t 2, long double a 16-byte IEEE quad).
 * Packing walks the typed layout of whole elements and converts each basic
 * element; integers that narrow (long -> 4 bytes) keep their low bytes and
 * are sign- or zero-extended on the way back; x87 long doubles are
 * converted to and from IEEE binary128 (truncating the extra precision of
 * a quad that did not come from a long double). */
#include "core/dt_layout.h"

#include <float.h>
#include <string.h>

/* Copies n bytes reversing their order on a little-endian host. */
static void to_be(unsigned char *dst, const unsigned char *src, int n)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    memcpy(dst, src, (size_t)n);
#else
    for (int i = 0; i < n; i++) dst[i] = src[n - 1 - i];
#endif
}

static void put_u64_be(unsigned char *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8) p[i] = (unsigned char)v;
}

static uint64_t get_u64_be(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | p[i];
    return v;
}

/* long double <-> IEEE binary128, big-endian. */
static void ld_to_quad(unsigned char *q, const unsigned char *ld)
{
#if LDBL_MANT_DIG == 64 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t mant;
    uint16_t se;
    memcpy(&mant, ld, 8);
    memcpy(&se, ld + 8, 2);
    uint64_t sign = se >> 15, exp = se & 0x7fff, frac = mant & 0x7fffffffffffffffull;
    if (exp == 0 && (mant >> 63)) exp = 1; /* pseudo-denormal */
    put_u64_be(q, sign << 63 | exp << 48 | frac >> 15);
    put_u64_be(q + 8, frac << 49);
#elif LDBL_MANT_DIG == 113
    to_be(q, ld, 16);
#else /* long double is a double */
    double d;
    memcpy(&d, ld, sizeof d);
    uint64_t b;
    memcpy(&b, &d, 8);
    uint64_t sign = b >> 63, exp = (b >> 52) & 0x7ff, frac = b & 0xfffffffffffffull;
    if (exp == 0x7ff) exp = 0x7fff;
    else if (exp != 0) exp = exp - 1023 + 16383;
    else if (frac != 0) { /* subnormal double: normal quad */
        int shift = __builtin_clzll(frac) - 11;
        frac = (frac << shift) & 0xfffffffffffffull;
        exp = 16383 - 1022 - shift;
    }
    put_u64_be(q, sign << 63 | exp << 48 | frac >> 4);
    put_u64_be(q + 8, frac << 60);
#endif
}

static void quad_to_ld(unsigned char *ld, const unsigned char *q)
{
#if LDBL_MANT_DIG == 64 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t hi = get_u64_be(q), lo = get_u64_be(q + 8);
    uint64_t exp = (hi >> 48) & 0x7fff;
    uint64_t mant = ((hi & 0xffffffffffffull) << 15) | lo >> 49;
    if (exp != 0) mant |= 1ull << 63;
    uint16_t se = (uint16_t)((hi >> 63) << 15 | exp);
    memset(ld, 0, sizeof(long double));
    memcpy(ld, &mant, 8);
    memcpy(ld + 8, &se, 2);
#elif LDBL_MANT_DIG == 113
    to_be(ld, q, 16);
#else
    uint64_t hi = get_u64_be(q), lo = get_u64_be(q + 8);
    uint64_t sign = hi >> 63;
    int64_t exp = (int64_t)((hi >> 48) & 0x7fff);
    uint64_t frac = ((hi & 0xffffffffffffull) << 4) | lo >> 60;
    double d;
    if (exp == 0x7fff) exp = 0x7ff;
    else if (exp == 0 && frac == 0) exp = 0;
    else exp = exp - 16383 + 1023;
    if (exp >= 0x7ff && ((hi >> 48) & 0x7fff) != 0x7fff) exp = 0x7ff, frac = 0; /* overflow */
    if (exp <= 0 && ((hi >> 48) & 0x7fff) != 0) exp = 0, frac = 0;               /* underflow */
    uint64_t b = sign << 63 | (uint64_t)exp << 52 | frac;
    memcpy(&d, &b, 8);
    memset(ld, 0, sizeof(long double));
    memcpy(ld, &d, sizeof d);
#endif
}

typedef struct {
    unsigned char *stream;
    bool pack;
} xwalk;

/* Converts the len bytes of basic type tag at addr (to or from the stream). */
static void convert(xwalk *x, int tag, unsigned char *mem, MPI_Count len)
{
    const dt_elem_info *e = dt_elem(tag);
    MPI_Count n = len / e->native;
    unsigned char *s = x->stream;
    for (MPI_Count k = 0; k < n; k++, mem += e->native, s += e->ext) {
        switch (e->conv) {
        case DT_CONV_COPY:
            if (x->pack) memcpy(s, mem, (size_t)e->ext);
            else memcpy(mem, s, (size_t)e->ext);
            break;
        case DT_CONV_SWAP:
            if (x->pack) to_be(s, mem, e->native);
            else to_be(mem, s, e->native);
            break;
        case DT_CONV_SWAP_HALVES: {
            int h = e->native / 2;
            if (x->pack) to_be(s, mem, h), to_be(s + h, mem + h, h);
            else to_be(mem, s, h), to_be(mem + h, s + h, h);
            break;
        }
        case DT_CONV_INT:
        case DT_CONV_UINT: { /* native e->native bytes <-> e->ext bytes */
            uint64_t v = 0;
            if (x->pack) {
                memcpy(&v, mem, (size_t)e->native); /* low bytes first (little-endian host) */
                for (int i = e->ext - 1; i >= 0; i--, v >>= 8) s[i] = (unsigned char)v;
            } else {
                for (int i = 0; i < e->ext; i++) v = v << 8 | s[i];
                int bits = 8 * e->ext;
                if (e->conv == DT_CONV_INT && bits < 64 && (v >> (bits - 1)) & 1) v |= ~0ull << bits;
                memcpy(mem, &v, (size_t)e->native);
            }
            break;
        }
        case DT_CONV_LDOUBLE:
            if (x->pack) ld_to_quad(s, mem);
            else quad_to_ld(mem, s);
            break;
        case DT_CONV_LDCOMPLEX: {
            int h = e->native / 2;
            if (x->pack) ld_to_quad(s, mem), ld_to_quad(s + 16, mem + h);
            else quad_to_ld(mem, s), quad_to_ld(mem + h, s + 16);
            break;
        }
        }
    }
    x->stream = s;
}

static void walk_lay(xwalk *x, const dt_lay *L, uintptr_t base)
{
    for (int i = 0; i < L->n; i++) {
        const dt_item *it = &L->items[i];
        MPI_Count idx[DT_MAXDIM] = {0}, blocks = 1;
        for (int d = 0; d < it->ndim; d++) blocks *= it->cnt[d];
        uintptr_t a = base + (uintptr_t)it->disp;
        for (MPI_Count k = 0; k < blocks; k++) {
            if (it->sub) walk_lay(x, it->sub, a);
            else convert(x, it->tag, (unsigned char *)a, it->len);
            dt_advance(it, idx, &a, 1);
        }
    }
}

static MPI_Count lay_ext_size(const dt_lay *L)
{
    MPI_Count total = 0;
    for (int i = 0; i < L->n; i++) {
        const dt_item *it = &L->items[i];
        MPI_Count blocks = 1;
        for (int d = 0; d < it->ndim; d++) blocks *= it->cnt[d];
        if (it->sub) {
            total += blocks * lay_ext_size(it->sub);
        } else {
            const dt_elem_info *e = dt_elem(it->tag);
            total += blocks * (it->len / e->native) * e->ext;
        }
    }
    return total;
}

MPI_Count dt_external_size(const dmpi_datatype *dt)
{
    return lay_ext_size(dt->tlay);
}

void dt_external_pack(const void *buf, MPI_Count count, const dmpi_datatype *dt, void *out)
{
    xwalk x = {out, true};
    for (MPI_Count e = 0; e < count; e++) walk_lay(&x, dt->tlay, dt_addr(buf, e * dt->extent));
}

void dt_external_unpack(const void *in, MPI_Count count, const dmpi_datatype *dt, void *buf)
{
    xwalk x = {(unsigned char *)in, false};
    for (MPI_Count e = 0; e < count; e++) walk_lay(&x, dt->tlay, dt_addr(buf, e * dt->extent));
}
