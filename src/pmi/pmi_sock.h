/* Socket I/O shared by the PMI-1 and PMI-2 backends (pmi1.c, pmi2.c): the
 * launcher's socket ($PMI_FD) is used blocking-with-poll, every system call
 * is retried on EINTR, sends never raise SIGPIPE, and every wait is bounded
 * by dmpi_pmi_timeout_ms() so that a launcher that stops mid-reply turns
 * into an error instead of a hang. Failures set the reason (dmpi_pmi_fail)
 * prefixed with the backend's name. */
#ifndef DMPI_PMI_SOCK_H
#define DMPI_PMI_SOCK_H

#include "pmi_wire.h"

#include <stddef.h>

/* Sends all n bytes. 0, or -1. */
int dmpi_pmi_sock_send(const char *who, int fd, const char *buf, size_t n);

/* Reads exactly n bytes; what names the reply in messages. 0, or -1
 * (closed, error or timeout). */
int dmpi_pmi_sock_read_exact(const char *who, const char *what, int fd, char *buf, size_t n);

/* Reads the next PMI-1 line through rd: 0 and the line, or -1. */
int dmpi_pmi_sock_read_line(const char *who, const char *what, int fd, dmpi_pmi_reader *rd, char **line,
                            size_t *len);

#endif
