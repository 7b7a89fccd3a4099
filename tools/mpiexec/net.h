/* The wire between mpiexec and its agents (net.c): growable byte buffers,
 * frames, TCP set-up and the choice of the address agents call back to.
 *
 * An agent connects, sends one text line "dmpi-agent KEY INDEX\n", then
 * both sides exchange frames: a 4-byte big-endian length (of what follows),
 * a 1-byte type, and a payload made of u32 (big-endian) and strings (u32
 * length including a final NUL, then the bytes). See docs/network.md. */
#ifndef MPX_NET_H
#define MPX_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MPX_FRAME_MAX (16u << 20) /* longest frame accepted */
#define MPX_HELLO_MAX 256         /* longest hello line */

/* frame types: agent -> mpiexec */
enum {
    MPX_M_OUT = 1, /* u32 dest (1/2), bytes: whole lines of output */
    MPX_M_LOG,     /* str: a message for mpiexec's stderr */
    MPX_M_PUT,     /* str key, str value */
    MPX_M_BIN,     /* u32 rank: entered the barrier */
    MPX_M_GONE,    /* u32 rank: can no longer enter a barrier */
    MPX_M_FAIL,    /* u32 status: a rank failed, the agent kills its ranks */
    MPX_M_INACK,   /* u32 closed: the last stdin chunk is delivered (or dropped) */
    MPX_M_DONE,    /* u32 status: every rank reaped, the agent exits */
    MPX_M_UCMD,    /* u32 rank, str line: a universe command (dmpi_*) of that rank */
    /* mpiexec -> agent */
    MPX_M_JOB = 32, /* the job description, first frame (see front.c) */
    MPX_M_KV,       /* str key, str value: a put made before the barrier */
    MPX_M_BOUT,     /* u32 rc (0 ok, 1 failed): barrier complete */
    MPX_M_IN,       /* bytes for rank 0's stdin */
    MPX_M_INEOF,    /* end of stdin */
    MPX_M_SIG,      /* u32 signal: SIGTERM/SIGKILL kill the ranks, SIGSTOP/SIGCONT */
    MPX_M_UREPLY    /* u32 rank, bytes: the answer to that rank's universe command */
};

typedef struct mpx_buf {
    char *p;
    size_t len, off, cap; /* unsent/unread bytes are p[off..len) */
    size_t fstart;        /* the frame being built starts here */
} mpx_buf;

void mpx_buf_put(mpx_buf *b, const void *d, size_t n);
void mpx_buf_free(mpx_buf *b);
void mpx_buf_consume(mpx_buf *b, size_t n);

void mpx_frame_begin(mpx_buf *b, int type);
void mpx_frame_u32(mpx_buf *b, uint32_t v);
void mpx_frame_str(mpx_buf *b, const char *s);
void mpx_frame_bytes(mpx_buf *b, const void *d, size_t n);
void mpx_frame_end(mpx_buf *b);

/* a received frame, and reading its payload (bad sticks) */
typedef struct mpx_frame {
    int type;
    const char *p;
    size_t len;
    bool bad;
} mpx_frame;

/* 1: a frame is in f (its bytes stay in b until mpx_buf_consume(b,
 * f->size)), 0: need more, -1: a frame over MPX_FRAME_MAX. */
int mpx_frame_next(mpx_buf *b, mpx_frame *f, size_t *size);
uint32_t mpx_frame_get_u32(mpx_frame *f);
const char *mpx_frame_get_str(mpx_frame *f); /* NULL (and bad) if malformed */

/* Nonblocking I/O on a socket: read appends to b (>0 bytes, 0 EOF, -1
 * error, -2 nothing now); flush sends what it can (0, or -1 error). */
int mpx_sock_read(int fd, mpx_buf *b);
int mpx_sock_flush(int fd, mpx_buf *b);

/* TCP: a listening socket on every address (port chosen by the kernel) */
int mpx_tcp_listen(int *port);
/* connect to "ADDR:PORT" within timeout seconds: fd, or -1 (errno) */
int mpx_tcp_connect(const char *addr_port, double timeout);
/* The address agents call back to: -iface NAME's IPv4 address, else the
 * host name's non-loopback IPv4 address, else the first non-loopback
 * interface's, else 127.0.0.1 (also when every host is local). 0, or -1
 * after a message. */
int mpx_pick_addr(const char *iface, bool local_only, char *out, size_t outlen);
bool mpx_host_is_local(const char *name);

#endif
