#!/usr/bin/env python3
"""A scripted PMI-2 launcher for one rank, to test dmpi's PMI-2 client
(src/pmi/pmi2.c) without Slurm, including replies a real launcher never
sends. Usage: fake_pmi2.py MODE PROGRAM [ARGS...]

Starts PROGRAM with PMI_FD (one end of a socket pair), PMI_RANK=0 and
PMI_SIZE=1, answers the PMI-1 init line offering version 2, then serves
length-framed PMI-2 messages. It checks every request it gets: a 6-byte
left-aligned decimal length, a body of exactly that length, "cmd=" first.
MODE:
  ok          a well-behaved launcher
  pmi1only    declines version 2; the client must fall back to PMI-1
  truncated   the fullinit reply stops after 10 of its bytes, then closes
  malformed   the fullinit reply is not cmd=...;
  badlen      the fullinit reply's length field is not a number
  silent      never answers fullinit (the client's bounded wait must end it)
  badmap      PMI_process_mapping is malformed
  wrongrank   says rank 3 of 1
  abort       expects the program to call MPI_Abort: checks the abort message
Prints "fake_pmi2: <what happened>" lines to stderr and exits with the
program's exit status (1 if a request was malformed)."""
import os
import socket
import subprocess
import sys
import threading

mode, argv = sys.argv[1], sys.argv[2:]
parent, child = socket.socketpair()
env = dict(os.environ, PMI_FD=str(child.fileno()), PMI_RANK="0", PMI_SIZE="1")
env.setdefault("DMPI_PMI_TIMEOUT", "3")
env.pop("DMPI_JOBID", None)
proc = subprocess.Popen(argv, env=env, pass_fds=(child.fileno(),))
child.close()
bad = []
kvs = {}


def log(msg):
    print("fake_pmi2: " + msg, file=sys.stderr, flush=True)


def recv_exact(n):
    buf = b""
    while len(buf) < n:
        chunk = parent.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def send(body, length=None):
    data = body.encode()
    hdr = str(len(data) if length is None else length).ljust(6).encode()
    parent.sendall(hdr + data)


def parse(body):
    items = [i for i in body.split(";") if i]
    d = {}
    for it in items:
        if "=" not in it:
            bad.append("item without '=': " + it)
            continue
        k, v = it.split("=", 1)
        d[k] = v
    if not body.startswith("cmd="):
        bad.append("request does not start with cmd=: " + body)
    return d


def serve():
    line = b""
    while not line.endswith(b"\n"):
        c = parent.recv(1)
        if not c:
            log("closed before init")
            return
        line += c
    words = dict(w.split("=", 1) for w in line.decode().split())
    if words.get("cmd") != "init":
        bad.append("first line is not init: " + line.decode())
        return
    if mode == "pmi1only" or words.get("pmi_version") != "2":
        if words.get("pmi_version") == "2":
            parent.sendall(b"cmd=response_to_init rc=-1 msg=unsupported_pmi_version\n")
            log("declined PMI-2")
        else:
            parent.sendall(b"cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n")
        serve_pmi1()
        return
    parent.sendall(b"cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n")
    while True:
        hdr = recv_exact(6)
        if hdr is None:
            log("client closed")
            return
        h = hdr.decode()
        if not h.rstrip().isdigit() or h != h.rstrip().ljust(6):
            bad.append("bad length field %r" % h)
            return
        body = recv_exact(int(h))
        if body is None:
            bad.append("request cut short")
            return
        req = parse(body.decode())
        cmd = req.get("cmd")
        log("request " + cmd)
        if cmd == "fullinit":
            if mode == "truncated":
                parent.sendall(b"60    cmd=fullin")
                parent.shutdown(socket.SHUT_RDWR)
                return
            if mode == "malformed":
                send("this is not a PMI-2 message")
                continue
            if mode == "badlen":
                parent.sendall(b"abcdefcmd=fullinit-response;rc=0;")
                continue
            if mode == "silent":
                continue
            rank = 3 if mode == "wrongrank" else 0
            send("cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=%d;size=1;appnum=0;"
                 "spawner-jobid=;debugged=FALSE;pmiverbose=FALSE;" % rank)
        elif cmd == "job-getid":
            send("cmd=job-getid-response;jobid=fake.7;rc=0;")
        elif cmd == "info-getjobattr":
            val = "(vector,(0,x" if mode == "badmap" else "(vector,(0,1,1))"
            if req.get("key") == "PMI_process_mapping":
                send("cmd=info-getjobattr-response;found=TRUE;value=%s;rc=0;" % val)
            else:
                send("cmd=info-getjobattr-response;found=FALSE;rc=0;")
        elif cmd == "kvs-put":
            kvs[req.get("key")] = req.get("value", "")
            send("cmd=kvs-put-response;rc=0;")
        elif cmd == "kvs-fence":
            send("cmd=kvs-fence-response;rc=0;")
        elif cmd == "kvs-get":
            k = req.get("key")
            if req.get("jobid") != "fake.7":
                bad.append("kvs-get with jobid %r" % req.get("jobid"))
            if k in kvs:
                send("cmd=kvs-get-response;found=TRUE;value=%s;rc=0;" % kvs[k])
            else:
                send("cmd=kvs-get-response;found=FALSE;rc=0;")
        elif cmd == "abort":
            log("abort isworld=%s msg=%s" % (req.get("isworld"), req.get("msg")))
            proc.kill()
            return
        elif cmd == "finalize":
            send("cmd=finalize-response;rc=0;")
            log("finalized")
        else:
            bad.append("unknown command " + str(cmd))
            return


def serve_pmi1():
    """Just enough PMI-1 for one rank."""
    f = parent.makefile("rwb", buffering=0)
    store = {}
    for raw in f:
        w = dict(x.split("=", 1) for x in raw.decode().split() if "=" in x)
        c = w.get("cmd")
        if c == "init":
            out = "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0"
            log("PMI-1 init")
        elif c == "get_maxes":
            out = "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024"
        elif c == "get_appnum":
            out = "cmd=appnum rc=0 appnum=0"
        elif c == "get_my_kvsname":
            out = "cmd=my_kvsname rc=0 kvsname=fakekvs"
        elif c == "put":
            store[w["key"]] = w["value"]
            out = "cmd=put_result rc=0"
        elif c == "get":
            k = w.get("key")
            out = ("cmd=get_result rc=0 found=TRUE value=" + store[k]) if k in store else \
                "cmd=get_result rc=-1 found=FALSE"
        elif c == "barrier_in":
            out = "cmd=barrier_out rc=0"
        elif c == "finalize":
            out = "cmd=finalize_ack rc=0"
            log("finalized (PMI-1)")
        else:
            out = "cmd=%s rc=-1" % c
        parent.sendall((out + "\n").encode())


def serve_logged():
    try:
        serve()
    except OSError as e:
        log("connection ended: %s" % e)


t = threading.Thread(target=serve_logged, daemon=True)
t.start()
try:
    rc = proc.wait(timeout=60)
except subprocess.TimeoutExpired:
    proc.kill()
    log("program hung: killed after 60 s")
    rc = 124
for b in bad:
    log("protocol error: " + b)
sys.exit(1 if bad else rc)
