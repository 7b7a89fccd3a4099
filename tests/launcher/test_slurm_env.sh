#!/usr/bin/env bash
# Tests of mpiexec inside a Slurm allocation, without Slurm: fake SLURM_*
# variables, tests/launcher/fake_srun.sh on PATH as "srun" (it checks the
# options it gets and runs the agent here) and a stub ssh. Covers the node
# list and slot variables, -n defaults, -ppn, explicit hosts over the
# allocation, --launcher/DMPI_LAUNCHER ssh|srun|fork, a one-node allocation
# of this host (no srun, its slots kept), the environment the ranks see
# (no PMIX_* of an enclosing srun, here or on the nodes),
# errors (no srun, bad lists, srun failing) and failures (a rank killed,
# MPI_Abort, signals to mpiexec: nothing left behind). One line per case;
# exits 1 if any failed. Run by test_launcher.sh.
# Usage: tests/launcher/test_slurm_env.sh <build-bin-dir>
set -u
if [ $# -ne 1 ] || [ ! -x "$1/mpiexec" ]; then
    echo "usage: $0 <build-bin-dir containing mpiexec>" >&2
    exit 2
fi
BIN=$(cd "$1" && pwd)
MPIEXEC=$BIN/mpiexec
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/dmpi-slurm-env-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
LABEL="slurm env: "
. "$SRC/tests/launcher/common.sh"

for v in $(env | sed -n 's/^\(SLURM[A-Z0-9_]*\)=.*/\1/p'); do unset "$v"; done
mkdir -p "$TMP/bin" "$TMP/nobin"
ln -s "$SRC/tests/launcher/fake_srun.sh" "$TMP/bin/srun"
cat >"$TMP/bin/ssh" <<'EOS'
#!/bin/sh
# stub ssh: skips its options, logs the host, runs the command here
while [ $# -gt 0 ]; do case $1 in -o) shift 2 ;; -*) shift ;; *) break ;; esac; done
echo "$1" >>"$SSH_LOG"
shift
exec "$@"
EOS
chmod +x "$TMP/bin/ssh"
export PATH="$TMP/bin:$PATH" FAKE_SRUN_LOG=$TMP/srun.log FAKE_SRUN_PIDS=$TMP/srun.pids SSH_LOG=$TMP/ssh.log
ME=$(hostname)

# run [VAR=VALUE...] -- ARGS...: mpiexec with those variables (a fake
# allocation), stdin from /dev/null; sets st and ms
run() {
    local envs=() t0
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    : >"$TMP/srun.log"; : >"$TMP/ssh.log"; : >"$TMP/srun.pids"
    t0=$(now_ms)
    env "${envs[@]}" "$MPIEXEC" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    st=$?
    ms=$(($(now_ms) - t0))
}
A2="SLURM_JOB_ID=4242 SLURM_JOB_NODELIST=n[1-2] SLURM_TASKS_PER_NODE=2(x2)" # two nodes, 2 slots each
pids() { awk '$1 == "pid" { print $3 }' "$TMP/err"; cat "$TMP/srun.pids"; }
report() { if [ -z "$why" ]; then pass "$1"; else fail "$1" "$why"; fi; }
want_status() { [ "$st" -eq "$1" ] || why="$why status $st, want $1 ($(head -c 300 "$TMP/err" | tr '\n' ' '));"; }
want_err() { grep -q -- "$1" "$TMP/err" || why="$why stderr lacks '$1';"; }
want_out() { grep -qxF -- "$1" "$TMP/out" || why="$why stdout lacks '$1';"; }
want_ranks() { [ "$(grep -c ' ok$' "$TMP/out")" -eq "$1" ] || why="$why not $1 ranks ok;"; }
# want_sruns "n1 n2": srun was run for exactly these hosts (any order)
want_sruns() {
    local got
    got=$(awk '{ print $1 }' "$TMP/srun.log" | sort | tr '\n' ' ' | sed 's/ $//')
    [ "$got" = "$(echo "$1" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')" ] || why="$why srun ran for '$got', want '$1';"
}
want_ssh() {
    local got
    got=$(sort "$TMP/ssh.log" | tr '\n' ' ' | sed 's/ $//')
    [ "$got" = "$1" ] || why="$why ssh ran for '$got', want '$1';"
}
alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null; }
want_gone() {
    local p
    for i in $(seq 20); do
        left=0
        for p in $(pids); do alive "$p" && left=1; done
        [ $left = 0 ] && return 0
        sleep 0.1
    done
    for p in $(pids); do alive "$p" && why="$why pid $p still alive;"; done
}

# ------------------------------------------------ hosts, slots, -n default
why=""; run $A2 SLURM_NTASKS=4 -- "$P" map
want_status 0; want_ranks 4; want_sruns "n1 n2"; want_ssh ""
for r in 0 1 2 3; do want_out "map $r (vector,(0,2,2)) $((r % 2)) 2"; done
grep -q "^n1 --nodes=1 --ntasks=1 --overlap --mpi=none --export=ALL --quiet --kill-on-bad-exit=1 --cpu-bind=none --nodelist=n1$" "$TMP/srun.log" ||
    why="$why srun options: $(head -1 "$TMP/srun.log");"
report "n[1-2] with 2(x2): -n from SLURM_NTASKS, one srun per node with its options, mapping"

why=""; run $A2 SLURM_NTASKS=3 -- "$P" map
want_status 0; want_ranks 3; want_out "map 2 (vector,(0,1,2),(1,1,1)) 0 1"
report "SLURM_NTASKS=3 on 2(x2): blocks of 2 + 1"

why=""; run SLURM_JOB_ID=4242 SLURM_JOB_NODELIST=n[1-2] SLURM_TASKS_PER_NODE=3,1 -- "$P" map
want_status 0; want_ranks 4; want_out "map 3 (vector,(0,1,3),(1,1,1)) 0 1"
report "no SLURM_NTASKS: -n is every slot (3,1)"

why=""; run SLURM_JOB_ID=4242 SLURM_JOB_NODELIST=n[1-2] SLURM_JOB_CPUS_PER_NODE=2,1 -- "$P" map
want_status 0; want_ranks 3; want_out "map 2 (vector,(0,1,2),(1,1,1)) 0 1"
report "slots from SLURM_JOB_CPUS_PER_NODE"

why=""; run SLURM_JOB_ID=4242 SLURM_JOB_NODELIST=n[1-2] SLURM_TASKS_PER_NODE="2(x3)" SLURM_JOB_CPUS_PER_NODE=1,3 -- "$P" map
want_status 0; want_ranks 4; want_out "map 3 (vector,(0,1,1),(1,1,3)) 2 3"
want_err "ignoring SLURM_TASKS_PER_NODE='2(x3)'"
report "SLURM_TASKS_PER_NODE for 3 nodes on 2: ignored, SLURM_JOB_CPUS_PER_NODE used"

why=""; run SLURM_JOBID=4242 SLURM_NODELIST=n[1-2] -- "$P" map
want_status 0; want_ranks 2; want_sruns "n1 n2"; want_out "map 1 (vector,(0,2,1)) 0 1"
report "SLURM_JOBID, SLURM_NODELIST and no slots: one rank per node"

why=""; run SLURM_JOB_ID=4242 SLURM_JOB_NODELIST="gpu-a[1-2]x,login1,n[08-10]" SLURM_TASKS_PER_NODE="1(x6)" -- -l "$P" env SLURMD_NODENAME
want_status 0; want_ranks 6; want_sruns "gpu-a1x gpu-a2x login1 n08 n09 n10"
r=0; for h in gpu-a1x gpu-a2x login1 n08 n09 n10; do want_out "[$r] SLURMD_NODENAME=$h"; r=$((r + 1)); done
report "node list gpu-a[1-2]x,login1,n[08-10]: ranks in node order"

why=""; run $A2 SLURM_NTASKS=4 -- -ppn 1 "$P" map
want_status 0; want_ranks 2; want_out "map 1 (vector,(0,2,1)) 0 1"
report "-ppn 1: one rank per node, -n is ppn x nodes"

why=""; run $A2 -- -n 2 "$P" map
want_status 0; want_ranks 2; want_sruns "n1"; want_out "map 1 (vector,(0,1,2)) 1 2"
report "-n 2 on 2(x2): both on n1, no srun for n2"

why=""; run $A2 -- -n 5 "$P" ok
want_status 2; want_err "5 processes requested but the 2 host(s) of the Slurm allocation have only 4 slot(s)"
want_sruns ""
report "-n 5 on 4 slots: refused"

why=""; run $A2 -- -n 5 --oversubscribe "$P" map
want_status 0; want_ranks 5; want_out "map 4 (vector,(0,1,3),(1,1,2)) 1 2"
report "--oversubscribe -n 5 on 4 slots"

# ------------------------------------------------- explicit hosts, launcher
why=""; run $A2 -- -hosts a,b -n 2 "$P" map
want_status 0; want_ranks 2; want_sruns ""; want_ssh "a b"
report "-hosts a,b (not in the allocation) win, through ssh"

why=""; run $A2 -- -hosts n2:2 "$P" map
want_status 0; want_ranks 2; want_sruns "n2"; want_ssh ""
report "-hosts n2:2 (in the allocation): srun on n2 only"

why=""; run $A2 -- --launcher-exec "$SRC/tests/launcher/fake_ssh.sh" "$P" map
want_status 0; want_ranks 4; want_sruns ""
report "--launcher-exec on the allocation's hosts"

for how in "--launcher ssh" "DMPI_LAUNCHER=ssh"; do
    why=""
    if [ "${how%%=*}" = DMPI_LAUNCHER ]; then run $A2 "$how" -- "$P" map; else run $A2 -- $how "$P" map; fi
    want_status 0; want_ranks 4; want_sruns ""; want_ssh "n1 n2"
    report "$how: ssh to the allocation's hosts"
done

for how in "--launcher fork" "DMPI_LAUNCHER=fork"; do
    why=""
    if [ "${how%%=*}" = DMPI_LAUNCHER ]; then run $A2 "$how" -- "$P" map; else run $A2 -- $how "$P" map; fi
    want_status 0; want_ranks 1; want_sruns ""; want_ssh ""
    report "$how: this node, as without Slurm"
done

why=""; run $A2 -- --launcher ssh --launcher srun "$P" map
want_status 0; want_ranks 4; want_sruns "n1 n2"
report "the last --launcher wins"

# ---------------------------------------------- one node, this host
why=""; run SLURM_JOB_ID=4242 SLURM_JOB_NODELIST="$ME" SLURM_TASKS_PER_NODE=3 -- "$P" map
want_status 0; want_ranks 3; want_sruns ""; want_ssh ""
report "one-node allocation of this host: runs here, -n from its slots"

why=""; run SLURM_JOB_ID=4242 SLURM_JOB_NODELIST="$ME" SLURM_TASKS_PER_NODE=3 -- -n 4 "$P" ok
want_status 2; want_err "use --oversubscribe"
report "one-node allocation of this host: -n 4 on 3 slots refused"

why=""; run SLURM_JOB_ID=4242 SLURM_JOB_NODELIST="$ME" SLURM_TASKS_PER_NODE=3 -- -n 4 --oversubscribe "$P" ok
want_status 0; want_ranks 4; want_sruns ""
report "one-node allocation of this host: --oversubscribe"

why=""; run SLURM_JOB_ID=4242 SLURM_JOB_NODELIST="$ME" SLURM_TASKS_PER_NODE=2 -- --launcher srun "$P" ok
want_status 0; want_ranks 2; want_sruns "$ME"
report "one-node allocation of this host with --launcher srun: through srun"

why=""; run SLURM_JOB_ID=4242 SLURM_JOB_NODELIST=n7 SLURM_TASKS_PER_NODE=2 -- "$P" ok
want_status 0; want_ranks 2; want_sruns "n7"
report "one-node allocation of another host: through srun"

why=""; run SLURM_JOB_ID=4242 SLURM_JOB_NODELIST="$ME" SLURM_TASKS_PER_NODE=2 SLURMD_NODENAME=batchnode -- "$P" ok
want_status 0; want_ranks 2; want_sruns "$ME"
report "SLURMD_NODENAME says another node: through srun"

# ------------------------------------------------------- the environment
why=""; run $A2 SLURM_NTASKS=4 SLURMD_NODENAME=head SLURM_PROCID=9 SLURM_NTASKS_PER_NODE=2 CUDA_VISIBLE_DEVICES=5 \
    FAKE_SRUN_GPUS=0 -- -l "$P" env SLURM_JOB_ID SLURM_NTASKS SLURMD_NODENAME SLURM_PROCID SLURM_NTASKS_PER_NODE CUDA_VISIBLE_DEVICES
want_status 0
for l in "[0] SLURM_JOB_ID=4242" "[3] SLURM_NTASKS=4" "[1] SLURMD_NODENAME=n1" "[2] SLURMD_NODENAME=n2" "[3] SLURM_PROCID=0" \
    "[2] SLURM_NTASKS_PER_NODE=2" "[3] CUDA_VISIBLE_DEVICES=0"; do want_out "$l"; done
report "ranks see the job's variables, their node's (SLURMD_NODENAME, devices) from srun; srun gets no step-shaping ones"

why=""; run PMIX_NAMESPACE=slurm.pmix.9.0 PMIX_RANK=0 -- -n 2 "$P" env PMIX_NAMESPACE PMIX_RANK
want_status 0; want_ranks 2; want_out "PMIX_NAMESPACE=(unset)"; want_out "PMIX_RANK=(unset)"
why2=$why; run $A2 PMIX_NAMESPACE=slurm.pmix.9.0 PMIX_RANK=0 -- "$P" env PMIX_NAMESPACE PMIX_RANK
why=$why2; want_status 0; want_ranks 4; want_out "PMIX_NAMESPACE=(unset)"
report "PMIX_* of an enclosing srun --mpi=pmix do not reach the ranks (here and through srun)"

# ---------------------------------------------------------------- errors
why=""; run $A2 PATH="$TMP/nobin" -- "$P" ok
want_status 2; want_err "srun is not in PATH: use --launcher ssh"
report "no srun in PATH: clear message"

why=""; run -- --launcher srun "$P" ok
want_status 2; want_err "srun needs a Slurm allocation"
report "--launcher srun outside an allocation"

why=""; run DMPI_LAUNCHER=rsh -- "$P" ok
want_status 2; want_err "bad DMPI_LAUNCHER 'rsh'"
report "bad DMPI_LAUNCHER"

why=""; run -- --launcher pbs "$P" ok
want_status 2; want_err "bad launcher 'pbs'"
report "bad --launcher"

why=""; run $A2 -- --launcher fork -hosts a "$P" ok
want_status 2; want_err "fork runs the job on this node only"
report "--launcher fork with -hosts refused"

why=""; run SLURM_JOB_ID=4242 "SLURM_JOB_NODELIST=n[1-" -- "$P" ok
want_status 2; want_err "cannot read SLURM_JOB_NODELIST='n\[1-'"
report "malformed SLURM_JOB_NODELIST"

why=""; run SLURM_JOB_ID=4242 -- "$P" ok
want_status 2; want_err "neither SLURM_JOB_NODELIST nor SLURM_NODELIST"
report "SLURM_JOB_ID without a node list"

why=""; run $A2 FAKE_SRUN_FAIL=n2 -- "$P" sleep
want_status 1; want_err "cannot start the agent on host n2: the launcher 'srun' exited with code 1 before the agent connected"
want_err "n2: srun: error: Unable to create step"; want_gone
report "srun failing on n2: its message, the job ends, nothing left"

why=""; run -- "$P" map
want_status 0; want_ranks 1; want_sruns ""; want_ssh ""
report "outside an allocation nothing changes"

# -------------------------------------------------------------- failures
why=""; run $A2 FAIL_RANK=3 -- "$P" kill
want_status 137; want_err "host n2: rank 3 (pid [0-9]*) killed by signal 9"; want_gone
[ "$ms" -lt 2000 ] || why="$why took $ms ms;"
report "rank 3 on n2 killed: job ends, status 137, nothing left"

why=""; run $A2 -- "$P" abort
want_status 5; want_err "rank 1 (pid [0-9]*) called MPI_Abort with code 5"; want_gone
report "MPI_Abort on n1: status 5, nothing left"

for sig in TERM KILL; do
    why=""
    : >"$TMP/srun.pids"
    env $A2 "$MPIEXEC" "$P" sleep >"$TMP/out" 2>"$TMP/err" </dev/null &
    bg=$!
    for i in $(seq 100); do [ "$(awk '$1 == "pid"' "$TMP/err" | wc -l)" -ge 4 ] && break; sleep 0.05; done
    [ "$(awk '$1 == "pid"' "$TMP/err" | wc -l)" -ge 4 ] || why="ranks did not start;"
    exec 3>&2 2>/dev/null
    kill -s $sig $bg
    wait $bg
    st=$?
    exec 2>&3 3>&-
    [ $sig = TERM ] && want_status 143
    want_gone
    report "SIG$sig to mpiexec: agents and ranks on every node end"
done

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
