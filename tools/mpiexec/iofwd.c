/* mpiexec I/O forwarding: each rank's stdout and stderr arrive on pipes and
 * are copied to mpiexec's own stdout/stderr in whole lines only (optionally
 * prefixed "[rank] "), so lines from different ranks interleave but never
 * tear. A line longer than STREAM_LINE_MAX is passed on in pieces. A last
 * line without '\n' is flushed at EOF (labelled output then gets a '\n').
 * mpiexec's stdin is forwarded to rank 0. */
#include "mpiexec.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_CHUNK (64u << 10)
#define STREAM_LINE_MAX (1u << 20)
#define STDIN_BUF (64u << 10)

int mpx_write_all(mpx_job *job, int fd, const char *buf, size_t n)
{
    if (job->mode == MPX_MODE_AGENT) return mpx_agent_output(job, fd, buf, n);
    if (fd < 0 || fd > 2 || job->out_dead[fd]) return -1;
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w > 0) {
            buf += w;
            n -= (size_t)w;
        } else if (w < 0 && errno == EINTR) {
            if (mpx_pending_signal) return -1; /* let the main loop act on it */
        } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            /* someone made our shared stdout non-blocking: wait, do not spin */
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            if (poll(&p, 1, -1) < 0 && errno == EINTR && mpx_pending_signal) return -1;
        } else {
            job->out_dead[fd] = true; /* EPIPE and friends: drop output from now on */
            return -1;
        }
    }
    return 0;
}

/* Writes data[0..n) of stream s: labelled line by line when -l. */
static void emit(mpx_job *job, mpx_rank *r, mpx_stream *s, const char *data, size_t n)
{
    if (n == 0) return;
    if (!job->opts->label) {
        mpx_write_all(job, s->dest, data, n);
        s->at_line_start = data[n - 1] == '\n';
        return;
    }
    static char *tmp;
    static size_t tmpcap;
    char label[24];
    int ll = snprintf(label, sizeof label, "[%d] ", r->rank);
    size_t lines = 1;
    for (size_t i = 0; i < n; i++) lines += data[i] == '\n';
    size_t need = n + lines * (size_t)ll + 1;
    if (need > tmpcap) {
        tmpcap = need * 2;
        tmp = mpx_xrealloc(tmp, tmpcap);
    }
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s->at_line_start) {
            memcpy(tmp + o, label, (size_t)ll);
            o += (size_t)ll;
            s->at_line_start = false;
        }
        tmp[o++] = data[i];
        if (data[i] == '\n') s->at_line_start = true;
    }
    mpx_write_all(job, s->dest, tmp, o);
}

int mpx_stream_init(mpx_stream *s, int fd, int dest)
{
    s->fd = fd;
    s->dest = dest;
    s->at_line_start = true;
    s->buf = NULL;
    s->len = s->cap = 0;
    return 0;
}

void mpx_stream_finish(mpx_job *job, mpx_rank *r, mpx_stream *s)
{
    if (s->len > 0) {
        emit(job, r, s, s->buf, s->len);
        if (job->opts->label && !s->at_line_start) {
            mpx_write_all(job, s->dest, "\n", 1);
            s->at_line_start = true;
        }
    }
    free(s->buf);
    s->buf = NULL;
    s->len = s->cap = 0;
    if (s->fd >= 0) {
        mpx_loop_del(s->fd);
        close(s->fd);
    }
    s->fd = -1;
}

void mpx_stream_readable(mpx_job *job, mpx_rank *r, mpx_stream *s)
{
    for (int rounds = 0; s->fd >= 0 && rounds < 16; rounds++) {
        if (s->cap - s->len < READ_CHUNK) {
            s->cap = s->cap ? s->cap * 2 : 2 * READ_CHUNK;
            if (s->cap < s->len + READ_CHUNK) s->cap = s->len + READ_CHUNK;
            s->buf = mpx_xrealloc(s->buf, s->cap);
        }
        ssize_t n = read(s->fd, s->buf + s->len, READ_CHUNK);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n <= 0) {
            mpx_stream_finish(job, r, s);
            return;
        }
        s->len += (size_t)n;
        /* pass on every complete line; keep the unfinished one */
        char *nl = memrchr(s->buf, '\n', s->len);
        size_t done = nl ? (size_t)(nl - s->buf) + 1 : 0;
        if (done == 0 && s->len >= STREAM_LINE_MAX) done = s->len; /* give up on one huge line */
        if (done > 0) {
            emit(job, r, s, s->buf, done);
            memmove(s->buf, s->buf + done, s->len - done);
            s->len -= done;
        }
        if (s->cap > 4 * READ_CHUNK && s->len < READ_CHUNK) { /* shrink after a long line */
            s->cap = 2 * READ_CHUNK;
            s->buf = mpx_xrealloc(s->buf, s->cap);
        }
        if ((size_t)n < READ_CHUNK) return; /* drained for now */
    }
}

void mpx_stream_drain(mpx_job *job, mpx_rank *r)
{
    for (int k = 0; k < 2; k++) {
        mpx_stream *s = &r->out[k];
        while (s->fd >= 0) {
            struct pollfd p = {.fd = s->fd, .events = POLLIN};
            if (poll(&p, 1, 0) <= 0) break; /* nothing more right now */
            mpx_stream_readable(job, r, s);
        }
    }
}

/* ------------------------------------------------------------- stdin */

void mpx_stdin_close(mpx_job *job)
{
    if (job->stdin_dst >= 0) {
        mpx_loop_del(job->stdin_dst);
        close(job->stdin_dst);
    }
    job->stdin_dst = -1;
    job->stdin_src = -1;
    job->inlen = job->inoff = 0;
}

void mpx_stdin_writable(mpx_job *job)
{
    if (job->mode == MPX_MODE_FRONT) { /* to rank 0's agent */
        mpx_front_stdin(job);
        return;
    }
    while (job->stdin_dst >= 0 && job->inoff < job->inlen) {
        ssize_t w = write(job->stdin_dst, job->inbuf + job->inoff, job->inlen - job->inoff);
        if (w > 0) job->inoff += (size_t)w;
        else if (w < 0 && errno == EINTR) continue;
        else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        else { /* EPIPE: rank 0 closed its stdin or exited */
            mpx_stdin_close(job);
            return;
        }
    }
    job->inlen = job->inoff = 0;
    if (job->stdin_eof) mpx_stdin_close(job);
}

void mpx_stdin_readable(mpx_job *job)
{
    if (job->stdin_src < 0 || job->inlen > 0) return;
    if (job->inbuf == NULL) job->inbuf = mpx_xmalloc(STDIN_BUF);
    ssize_t n = read(job->stdin_src, job->inbuf, STDIN_BUF);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) { /* EOF, or EIO from a terminal we are in the background of */
        job->stdin_eof = true;
        job->stdin_src = -1;
        mpx_stdin_writable(job); /* closes rank 0's stdin */
        return;
    }
    job->inlen = (size_t)n;
    job->inoff = 0;
    mpx_stdin_writable(job);
}
