#!/usr/bin/env bash
# tests/slurm/slurm.sh: a private, throw-away Slurm cluster on this machine
# for testing dmpi under a real Slurm (srun --mpi=pmi2|pmix, sbatch, salloc).
# Everything lives in one private directory (default /run/dmpi-slurm,
# DMPI_SLURM_DIR to change): slurm.conf, a munge key and its own munged
# (socket in that directory; the machine's munged, /etc/munge and /etc/slurm
# are left alone), state, spool, pid and log files. Clients find the cluster
# through SLURM_CONF: `up` prints the line to paste, alone on stdout (the
# rest goes to stderr), so that `eval "$(slurm.sh up)"` sets it.
#
#   slurm.sh up                 slurmctld + one slurmd for this machine
#                               (node $(hostname -s), partition "local")
#   slurm.sh up --hosts N       also N test hosts (tests/hosts/hosts.sh;
#                               made when missing): one slurmd on each of
#                               dmpi-h1..N (partition "hosts", the default)
#   slurm.sh down               cancel the jobs, stop the daemons that up
#                               started (and their slurmstepds), remove the
#                               directory; the test hosts go only if up made
#                               them. Idempotent, always safe.
#   slurm.sh status             what runs; exit 0 if the cluster is up
#   slurm.sh env                just the `export SLURM_CONF=...` line
#
# `up` is idempotent: with the cluster already up as asked it only prints
# the export line; up in another shape restarts it. It waits (DMPI_SLURM_WAIT
# seconds, default 30) until sinfo shows every node idle. Exit status 77 with
# one line "SKIP: slurm: <why>" on stdout where the cluster cannot be made
# in this environment (not root, Slurm or munge not installed, a plugin
# missing, test hosts impossible, a daemon that dies as it starts - its log
# tail is printed); 1 if the daemons run but the nodes never become idle.
#
# The configuration: auth/munge, select/cons_tres (CR_Core), every node
# claims DMPI_SLURM_CPUS CPUs (default 8, whatever it has: config_overrides)
# so that 8-task jobs run on a 2-core machine, proctrack/linuxproc,
# task/none, no cgroups, no accounting, MpiDefault=none, SlurmUser=root,
# ports DMPI_SLURM_PORT (slurmctld, default 6917) and +1 (slurmd), not the
# standard 6817/6818, so that a real Slurm on the machine is not disturbed;
# when they are taken (another such cluster), the next free pair 10 further.
# With test hosts, slurmctld and the local slurmd stay in the root
# namespace (10.213.0.254 on the hosts' bridge) and every host's slurmd runs
# inside the host (hosts.sh exec): its own network, host name and /dev/shm,
# so its tasks see what an MPI rank on another machine would. cgroup.conf
# names the cgroup plugin (22.05's slurmd loads one even so, and its
# autodetect finds no /sys/fs/cgroup on a test host); TmpFS is per node
# (the PMIx plugin's client directories would collide in the hosts' /tmp).
# See tests/slurm/README.md.
set -uo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
ROOT=$(cd "$(dirname "$SELF")/../.." && pwd)
H=$ROOT/tests/hosts/hosts.sh
D=${DMPI_SLURM_DIR:-/run/dmpi-slurm}
CONF=$D/slurm.conf
PORT=${DMPI_SLURM_PORT:-6917}
CPUS=${DMPI_SLURM_CPUS:-8}
WAIT=${DMPI_SLURM_WAIT:-30}
HEAD_ADDR=10.213.0.254 # hosts.sh's bridge address (dmpi-head)
MARK="DMPI_SLURM_OWNER=$D" # in the environment of every daemon we start
PLUGINS=""             # Slurm's plugin directory (found by check_tools)
LOCAL=$(hostname -s 2>/dev/null || hostname)

export SLURM_CONF=$CONF

say() { echo "slurm.sh: $*" >&2; }
die() { say "$*"; exit 1; }
# skip WHY: the cluster cannot be made here: one SKIP line, nothing left.
skip() { echo "SKIP: slurm: $*"; cmd_down >/dev/null 2>&1; exit 77; }

# ------------------------------------------------------------ processes
# alive PIDFILE: the pid in it runs and is one of ours (MARK in its
# environment; a pid reused by another program is not touched).
ours() {
    local pid=$1
    [ -n "$pid" ] && [ -r "/proc/$pid/environ" ] || return 1
    { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -qxF "$MARK"
}
pid_of() { cat "$1" 2>/dev/null; }
alive() { local p; p=$(pid_of "$1") && ours "$p"; }

# every process with MARK in its environment (daemons, their slurmstepds)
marked_pids() {
    local f pid
    for f in /proc/[0-9]*/environ; do
        pid=${f#/proc/}; pid=${pid%%/*}
        [ "$pid" = $$ ] && continue
        { tr '\0' '\n' <"$f"; } 2>/dev/null | grep -qxF "$MARK" && echo "$pid"
    done
}

# stop PID...: TERM, up to 5 s, then KILL.
stop_pids() {
    local p left i
    [ $# -gt 0 ] || return 0
    kill -TERM "$@" 2>/dev/null
    for ((i = 0; i < 50; i++)); do
        left=""
        for p in "$@"; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
        [ -z "$left" ] && return 0
        sleep 0.1
    done
    # shellcheck disable=SC2086
    kill -KILL $left 2>/dev/null
    sleep 0.2
}

# ------------------------------------------------------------ checks
check_tools() {
    local t p
    [ "$(id -u)" = 0 ] || skip "not root (the daemons run as root here)"
    for t in munged munge unmunge slurmctld slurmd srun sinfo squeue scontrol scancel sbatch salloc; do
        command -v "$t" >/dev/null 2>&1 ||
            skip "no $t (Debian: apt-get install munge slurmd slurmctld slurm-client)"
    done
    for p in /usr/lib/x86_64-linux-gnu/slurm-wlm /usr/lib/*/slurm-wlm /usr/lib64/slurm /usr/lib/slurm \
        /usr/local/lib/slurm; do
        [ -e "$p/select_cons_tres.so" ] && { PLUGINS=$p; break; }
    done
    [ -n "$PLUGINS" ] || skip "no Slurm plugin directory with select_cons_tres.so found"
    for t in auth_munge cred_munge proctrack_linuxproc task_none mpi_none; do
        [ -e "$PLUGINS/$t.so" ] || skip "Slurm plugin $t missing in $PLUGINS"
    done
}

# port_busy P: something listens on TCP port P here or on a test host
port_busy() {
    local hex f
    hex=$(printf '%04X' "$1")
    for f in "" /run/netns/dmpi-h*; do
        [ -z "$f" ] || [ -e "$f" ] || continue
        ${f:+nsenter --net="$f"} cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
            awk -v h="$hex" '$4 == "0A" && $2 ~ (":" h "$") { found = 1 } END { exit !found }' &&
            return 0
    done
    return 1
}
# pick_ports: PORT (slurmctld) and PORT+1 (slurmd) free, else 10 further on
pick_ports() {
    local p=$PORT i
    for ((i = 0; i < 20; i++)); do
        if ! port_busy "$p" && ! port_busy $((p + 1)); then
            [ "$p" = "$PORT" ] || say "ports $PORT/$((PORT + 1)) in use (another cluster?): using $p/$((p + 1))"
            PORT=$p
            return 0
        fi
        p=$((p + 10))
    done
    skip "no free TCP port pair from $PORT on"
}

# ------------------------------------------------------------ configuration
# write_conf NHOSTS: slurm.conf for the local node and NHOSTS test hosts.
write_conf() {
    local n=$1 k ctl_addr node_addr
    if [ "$n" -gt 0 ]; then ctl_addr=$HEAD_ADDR; else ctl_addr=127.0.0.1; fi
    node_addr=$ctl_addr
    {
        echo "# slurm.conf written by tests/slurm/slurm.sh: a private test cluster"
        echo "# (directory $D); remove it with: tests/slurm/slurm.sh down"
        echo "ClusterName=dmpi"
        echo "SlurmctldHost=$LOCAL($ctl_addr)"
        echo "SlurmctldPort=$PORT"
        echo "SlurmdPort=$((PORT + 1))"
        echo "SlurmUser=root"
        echo "SlurmdUser=root"
        echo "AuthType=auth/munge"
        echo "CredType=cred/munge"
        echo "AuthInfo=socket=$D/munge/munge.socket"
        echo "PluginDir=$PLUGINS"
        echo "StateSaveLocation=$D/state"
        echo "SlurmdSpoolDir=$D/spool/%n"
        # per node: the PMIx plugin makes its client directory under TmpFS,
        # which the test hosts would share as /tmp
        echo "TmpFS=$D/tmp/%n"
        echo "SlurmctldPidFile=$D/run/slurmctld.pid"
        echo "SlurmdPidFile=$D/run/slurmd.%n.pid"
        echo "SlurmctldLogFile=$D/log/slurmctld.log"
        echo "SlurmdLogFile=$D/log/slurmd.%n.log"
        echo "SlurmctldDebug=info"
        echo "SlurmdDebug=info"
        echo "ProctrackType=proctrack/linuxproc"
        echo "TaskPlugin=task/none"
        echo "JobAcctGatherType=jobacct_gather/none"
        echo "AccountingStorageType=accounting_storage/none"
        echo "JobCompType=jobcomp/none"
        echo "SwitchType=switch/none"
        echo "SelectType=select/cons_tres"
        echo "SelectTypeParameters=CR_Core"
        echo "SlurmdParameters=config_overrides"
        echo "SchedulerType=sched/backfill"
        echo "MpiDefault=none"
        echo "ReturnToService=2"
        echo "KillWait=5"
        echo "InactiveLimit=0"
        echo "MinJobAge=60"
        echo "MailProg=/bin/true"
        echo "SlurmdTimeout=60"
        echo "MessageTimeout=10"
        echo "NodeName=$LOCAL NodeAddr=$node_addr CPUs=$CPUS State=UNKNOWN"
        for ((k = 1; k <= n; k++)); do
            echo "NodeName=dmpi-h$k NodeAddr=10.213.0.$k CPUs=$CPUS State=UNKNOWN"
        done
        if [ "$n" -gt 0 ]; then
            echo "PartitionName=local Nodes=$LOCAL MaxTime=INFINITE State=UP"
            echo "PartitionName=hosts Nodes=dmpi-h[1-$n] Default=YES MaxTime=INFINITE State=UP"
        else
            echo "PartitionName=local Nodes=$LOCAL Default=YES MaxTime=INFINITE State=UP"
        fi
    } >"$CONF"
}

# cgroup.conf: slurmd 22.05 loads a cgroup plugin even with proctrack and
# task plugins that use none. "autodetect" looks at /sys/fs/cgroup, which
# a test host does not have (its /sys is a sysfs of its own network
# namespace): name the machine's version instead.
write_cgroup_conf() {
    local plugin=cgroup/v1
    [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ] && plugin=cgroup/v2
    [ -n "${DMPI_SLURM_CGROUP:-}" ] && plugin=$DMPI_SLURM_CGROUP
    {
        echo "# cgroup.conf written by tests/slurm/slurm.sh (no cgroups are used)"
        echo "CgroupPlugin=$plugin"
        [ "$plugin" = cgroup/v2 ] && echo "IgnoreSystemd=yes"
    } >"$D/cgroup.conf"
}

# the node names of the cluster in $D (from its slurm.conf)
conf_nodes() { sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' "$CONF" 2>/dev/null; }

# ------------------------------------------------------------ logs
log_tails() {
    local f
    for f in "$D"/munge/munged.log "$D"/log/*; do
        [ -s "$f" ] || continue
        echo "---- last lines of $f" >&2
        tail -n "${1:-8}" "$f" | sed 's/^/    /' >&2
    done
}
# the last error line of a daemon's logs, for the SKIP line
last_error() {
    local l
    l=$(cat "$@" 2>/dev/null | grep -iE 'error|fatal' | tail -1)
    [ -n "$l" ] || l=$(cat "$@" 2>/dev/null | tail -1)
    echo "${l:-no log}"
}

# start NAME LOGFILE CMD...: a daemon in the foreground (-D) in its own
# session, its pid in $D/run/NAME.own.
start() {
    local name=$1 log=$2
    shift 2
    env "$MARK" setsid "$@" >>"$log" 2>&1 </dev/null &
    echo $! >"$D/run/$name.own"
}

# ------------------------------------------------------------ up
cmd_up() {
    local n=0
    while [ $# -gt 0 ]; do
        case $1 in
            --hosts) n=${2:-}; shift 2 || die "up: --hosts needs N" ;;
            --hosts=*) n=${1#--hosts=}; shift ;;
            *) die "up: unknown argument $1 (usage: slurm.sh up [--hosts N])" ;;
        esac
    done
    { [[ $n =~ ^[0-9]+$ ]] && [ "$n" -le 250 ]; } || die "up: --hosts N: N must be 0..250"
    check_tools

    if [ -f "$D/shape" ]; then
        if [ "$(cat "$D/shape")" = "hosts=$n" ] && all_alive && sinfo_all_idle >/dev/null; then
            say "already up ($(cat "$D/shape")), nodes: $(conf_nodes | tr '\n' ' ')"
            echo "export SLURM_CONF=$CONF"
            return 0
        fi
        say "restarting the cluster in $D (was $(cat "$D/shape"), now hosts=$n)"
        cmd_down >/dev/null
    elif [ -e "$D" ]; then
        cmd_down >/dev/null # left from a broken run
    fi

    mkdir -p "$D"/{munge,state,spool,log,run} || skip "cannot make $D"
    chmod 755 "$D" "$D/munge" # munged wants its socket's directories searchable by all
    chmod 700 "$D/state"

    # test hosts first: the nodes' addresses and spools depend on them
    if [ "$n" -gt 0 ]; then
        local have out rc
        have=$("$H" list 2>/dev/null | grep -c '^dmpi-h[0-9]')
        out=$("$H" up "$n" 2>&1); rc=$?
        if [ $rc = 77 ]; then
            skip "no test hosts: $(echo "$out" | grep -m1 SKIP | sed 's/^SKIP: //')"
        elif [ $rc != 0 ]; then
            echo "$out" >&2
            skip "tests/hosts/hosts.sh up $n failed (exit status $rc)"
        fi
        [ "$have" = 0 ] && echo "$n" >"$D/hosts-ours"
        if "$H" list | grep -q INCOMPLETE; then
            skip "test hosts incomplete: $("$H" list | grep INCOMPLETE | head -1)"
        fi
    fi
    echo "hosts=$n" >"$D/shape"

    # munge: a key and a munged of our own
    local key=$D/munge/munge.key
    if [ ! -s "$key" ]; then
        if command -v mungekey >/dev/null 2>&1; then
            mungekey -c -k "$key" >/dev/null 2>&1
        fi
        [ -s "$key" ] || dd if=/dev/urandom of="$key" bs=1024 count=1 status=none ||
            skip "cannot make a munge key in $D/munge"
    fi
    chmod 400 "$key"
    env "$MARK" munged --socket="$D/munge/munge.socket" --key-file="$key" \
        --pid-file="$D/munge/munged.pid" --log-file="$D/munge/munged.log" \
        --seed-file="$D/munge/munged.seed" >"$D/munge/munged.out" 2>&1 ||
        { log_tails; skip "munged did not start: $(last_error "$D"/munge/munged.*)"; }
    cp "$D/munge/munged.pid" "$D/run/munged.own"
    if ! munge -S "$D/munge/munge.socket" -n 2>/dev/null | unmunge -S "$D/munge/munge.socket" >/dev/null 2>&1; then
        log_tails
        skip "munged runs but a credential does not pass munge | unmunge"
    fi

    pick_ports
    write_conf "$n"
    write_cgroup_conf
    local node k
    for node in $(conf_nodes); do mkdir -p "$D/spool/$node" "$D/tmp/$node"; done

    start slurmctld "$D/log/slurmctld.out" slurmctld -D -c -f "$CONF"
    start "slurmd-$LOCAL" "$D/log/slurmd-$LOCAL.out" slurmd -D -f "$CONF"
    for ((k = 1; k <= n; k++)); do
        start "slurmd-dmpi-h$k" "$D/log/slurmd-dmpi-h$k.out" "$H" exec "dmpi-h$k" slurmd -D -f "$CONF"
    done

    # wait until every node is idle
    local t0=$SECONDS f name
    while :; do
        for f in "$D"/run/*.own; do
            alive "$f" && continue
            name=$(basename "$f" .own)
            sleep 0.5 # let the log be written
            log_tails 12
            skip "$name exited as it started: $(last_error "$D/log/${name/-/.}.log" "$D/log/$name.out")"
        done
        sinfo_all_idle >/dev/null && break
        if [ $((SECONDS - t0)) -ge "$WAIT" ]; then
            say "the nodes are not all idle after $WAIT s:"
            sinfo -N -o '%N %t %E' >&2
            log_tails 12
            cmd_down >/dev/null 2>&1
            exit 1
        fi
        sleep 0.5
    done
    say "up in $((SECONDS - t0)) s ($(cat "$D/shape")), nodes: $(conf_nodes | tr '\n' ' ')"
    echo "export SLURM_CONF=$CONF"
}

all_alive() {
    local f
    for f in "$D"/run/*.own; do
        [ -e "$f" ] || return 1
        alive "$f" || return 1
    done
}

# every configured node is "idle" in sinfo (prints the states)
sinfo_all_idle() {
    local states want got
    want=$(conf_nodes | sort | tr '\n' ' ')
    states=$(timeout 10 sinfo -h -N -o '%N %t' 2>/dev/null | sort -u) || return 1
    echo "$states"
    got=$(echo "$states" | awk '$2 == "idle" { print $1 }' | sort | tr '\n' ' ')
    [ -n "$want" ] && [ "$got" = "$want" ]
}

# ------------------------------------------------------------ down
cmd_down() {
    local f p pids="" jobs
    if [ -f "$CONF" ] && alive "$D/run/slurmctld.own" 2>/dev/null; then
        jobs=$(timeout 10 squeue -h -t PD,R,CG,S,CF -o %i 2>/dev/null | tr '\n' ' ')
        if [ -n "${jobs// /}" ]; then
            echo "cancelling jobs $jobs"
            # shellcheck disable=SC2086
            timeout 10 scancel $jobs 2>/dev/null
            for ((p = 0; p < 50; p++)); do # up to 10 s for them to end
                [ -z "$(timeout 5 squeue -h -t PD,R,CG,S 2>/dev/null)" ] && break
                sleep 0.2
            done
        fi
    fi
    for f in "$D"/run/slurmd-*.own "$D"/run/slurmctld.own "$D"/run/munged.own; do
        [ -e "$f" ] || continue
        p=$(pid_of "$f")
        if ours "$p"; then
            pids="$pids $p"
            echo "stopping $(basename "$f" .own) (pid $p)"
        fi
    done
    # shellcheck disable=SC2086
    stop_pids $pids
    pids=$(marked_pids | tr '\n' ' ') # slurmstepds (and anything else) left
    if [ -n "${pids// /}" ]; then
        echo "killing what is left of ours: $pids"
        # shellcheck disable=SC2086
        stop_pids $pids
    fi
    if [ -f "$D/hosts-ours" ]; then
        # others may have come to use the hosts since (another cluster's
        # slurmds, a test): hosts.sh down would kill them
        local k others
        others=$(for k in $("$H" list 2>/dev/null | sed -n 's/^dmpi-h\([0-9]*\) .*/\1/p'); do
            "$H" ps "dmpi-h$k" 2>/dev/null | tail -n +2 | sed "s/^/dmpi-h$k: /"
        done)
        if [ -n "$others" ]; then
            echo "leaving the test hosts up: other processes run there:"
            echo "$others" | head -5 | sed 's/^/    /'
        else
            "$H" down >/dev/null 2>&1 && echo "took the test hosts down"
        fi
    fi
    if [ -d "$D" ]; then
        rm -rf "$D" && echo "removed $D"
    fi
    return 0
}

# ------------------------------------------------------------ status
cmd_status() {
    local f
    if [ ! -f "$D/shape" ]; then
        echo "slurm.sh: no cluster in $D"
        return 1
    fi
    echo "slurm.sh: cluster in $D ($(cat "$D/shape"))$([ -f "$D/hosts-ours" ] && echo ", test hosts made by up")"
    for f in "$D"/run/*.own; do
        [ -e "$f" ] || continue
        printf '  %-22s pid %-8s %s\n' "$(basename "$f" .own)" "$(pid_of "$f")" \
            "$(alive "$f" && echo running || echo GONE)"
    done
    timeout 10 sinfo -N -o '  %N %P %t %c' 2>&1
    echo "export SLURM_CONF=$CONF"
    all_alive
}

case ${1:-} in
    up) shift; cmd_up "$@" ;;
    down) shift; cmd_down ;;
    status) shift; cmd_status ;;
    env) echo "export SLURM_CONF=$CONF" ;;
    *) sed -n '2,/^set -uo/p' "$SELF" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
