/* Unit test of the shared-memory SPSC ring: a producer thread writes
 * 50000 packets of random sizes (inline-only to several cells, wrapping
 * around the ring), the consumer checks order, sizes and every payload
 * byte; also checks that a full ring refuses a reservation and that stale
 * payload bytes never look like a published packet, even bytes equal to
 * the stamp a later header at their cell would carry. */
#include "transport/shm/ring.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPKT 50000
#define CELLS 256

static dmpi_ring_ctl ctl;
static _Alignas(64) unsigned char cells[CELLS * DMPI_CELL];
static int failures;

#define CHECK(c, ...)                                   \
    do {                                                \
        if (!(c)) {                                     \
            fprintf(stderr, "FAIL: " __VA_ARGS__);      \
            fprintf(stderr, "\n");                      \
            failures++;                                 \
        }                                               \
    } while (0)

static uint32_t size_of(uint32_t i) { return (i * 2654435761u) % 3000; }
static unsigned char byte_of(uint32_t i, uint32_t k) { return (unsigned char)(i * 31 + k * 7); }

static void *producer(void *arg)
{
    (void)arg;
    dmpi_ring r = {&ctl, cells, CELLS, 0, 0};
    unsigned char buf[4096];
    for (uint32_t i = 0; i < NPKT; i++) {
        uint32_t n = size_of(i);
        for (uint32_t k = 0; k < n; k++) buf[k] = byte_of(i, k);
        uint32_t nc = dmpi_pkt_cells(n);
        dmpi_pkt *p;
        while (!(p = dmpi_ring_reserve(&r, nc))) {
        }
        dmpi_ring_write_payload(&r, p, buf, n);
        p->type = DMPI_PKT_EAGER;
        p->seq = i;
        p->len = n;
        dmpi_ring_publish(&r, p, nc);
    }
    return NULL;
}

/* A payload cell whose first bytes equal the stamp a header at that cell
 * will carry one lap later: when the consumer reaches that position it
 * must see nothing until the producer publishes there. */
static void check_stale_stamp(void)
{
    atomic_store(&ctl.tail, 0);
    memset(cells, 0, sizeof cells);
    dmpi_ring prod = {&ctl, cells, CELLS, 0, 0}, cons = {&ctl, cells, CELLS, 0, 0};
    unsigned char data[DMPI_INLINE_BYTES + DMPI_CELL] = {0};
    uint64_t fake = CELLS + 1 + 1; /* stamp of absolute position CELLS + 1 */
    memcpy(data + DMPI_INLINE_BYTES, &fake, sizeof fake);
    for (uint64_t pos = 0; pos <= CELLS; ) {
        uint32_t n = pos == 0 ? 2 : 1; /* cell 1 carries the fake stamp */
        dmpi_pkt *p = dmpi_ring_reserve(&prod, n);
        CHECK(p != NULL, "reservation at %llu refused", (unsigned long long)pos);
        if (!p) break;
        dmpi_ring_write_payload(&prod, p, data, n == 2 ? sizeof data : 0);
        dmpi_ring_publish(&prod, p, n);
        dmpi_pkt *q = dmpi_ring_peek(&cons);
        CHECK(q == p, "packet at %llu not visible", (unsigned long long)pos);
        if (!q) break;
        dmpi_ring_consume(&cons, q);
        dmpi_ring_release(&cons);
        pos += n;
    }
    CHECK(dmpi_ring_peek(&cons) == NULL, "stale payload bytes taken for a packet");
}

int main(void)
{
    /* Garbage that looks like stamps must not be taken for packets. */
    for (int c = 0; c < CELLS; c++) ((dmpi_pkt *)(void *)(cells + c * DMPI_CELL))->stamp = 0;
    dmpi_ring probe = {&ctl, cells, CELLS, 0, 0};
    CHECK(dmpi_ring_peek(&probe) == NULL, "empty ring shows a packet");

    /* Full ring: reserve fails until the consumer frees cells. */
    dmpi_ring prod = {&ctl, cells, CELLS, 0, 0};
    dmpi_pkt *p = dmpi_ring_reserve(&prod, CELLS);
    CHECK(p != NULL, "whole-ring reservation refused on an empty ring");
    dmpi_ring_publish(&prod, p, CELLS);
    CHECK(dmpi_ring_reserve(&prod, 1) == NULL, "full ring accepted a packet");
    dmpi_pkt *q = dmpi_ring_peek(&probe);
    CHECK(q == p, "published packet not visible");
    dmpi_ring_consume(&probe, q);
    dmpi_ring_release(&probe);
    CHECK(dmpi_ring_reserve(&prod, 1) != NULL, "consumed ring still full");
    check_stale_stamp();
    /* Reset both ends for the threaded run. */
    atomic_store(&ctl.tail, 0);
    for (int c = 0; c < CELLS; c++) ((dmpi_pkt *)(void *)(cells + c * DMPI_CELL))->stamp = 0;

    pthread_t t;
    pthread_create(&t, NULL, producer, NULL);
    dmpi_ring r = {&ctl, cells, CELLS, 0, 0};
    unsigned char buf[4096];
    for (uint32_t i = 0; i < NPKT && failures < 10; i++) {
        dmpi_pkt *pk;
        while (!(pk = dmpi_ring_peek(&r))) {
        }
        uint32_t n = size_of(i);
        CHECK(pk->seq == i, "packet %u arrived as %u", i, pk->seq);
        CHECK(pk->plen == n && pk->len == n, "packet %u has %u bytes, expected %u", i, pk->plen, n);
        dmpi_ring_read_payload(&r, pk, 0, buf, pk->plen);
        for (uint32_t k = 0; k < n && k < pk->plen; k++)
            if (buf[k] != byte_of(i, k)) {
                CHECK(0, "packet %u byte %u corrupted", i, k);
                break;
            }
        dmpi_ring_consume(&r, pk);
        dmpi_ring_release(&r);
    }
    pthread_join(t, NULL);
    printf("ring: %d packets, %s\n", NPKT, failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
