# hosts_lib.sh: sourced by bench/hosts_compare.sh and apps/run.sh --hosts:
# the test hosts (tests/hosts/hosts.sh: network + UTS + mount namespaces on
# this machine) and how each MPI launches a job across them with the same
# honest settings. Needs from its caller: REPO, WORK (a folder the hosts
# see), PREFIX_OF[key] (the MPI's install prefix), log and die.
# shellcheck shell=bash

HOSTS_SH=$REPO/tests/hosts/hosts.sh
# The test hosts and their network (tests/hosts/README.md).
H1=dmpi-h1 H2=dmpi-h2 H3=dmpi-h3
IFACE=eth0
NETWORK=10.213.0.0/24

hosts_ready() {
    local l
    l=$("$HOSTS_SH" list 2>/dev/null) || return 1
    for h in $H1 $H2 $H3; do
        grep -q "^$h .*(alias h[0-9]*)\$" <<<"$l" || return 1
    done
}

BROUGHT_UP=0 # this script brought the hosts up: it takes them down at the end
ensure_hosts() {
    hosts_ready && return 0
    log "bringing up the test hosts ($HOSTS_SH up 3)"
    local out rc
    out=$("$HOSTS_SH" up 3 2>&1); rc=$?
    if [ $rc = 77 ]; then printf '%s\n' "$out"; exit 77; fi
    [ $rc = 0 ] || { printf '%s\n' "$out" >&2; die "hosts.sh up 3 failed (exit $rc)"; }
    BROUGHT_UP=1
}

hosts_down_if_brought_up() {
    if [ "$BROUGHT_UP" = 1 ]; then
        log "taking the test hosts down (this script brought them up)"
        "$HOSTS_SH" down >/dev/null 2>&1
    fi
}

# The ssh-like launcher for the peers' ssh launchers: they call it as
# "CMD [ssh options] HOST word..." and mean the words as one shell line.
write_launcher() {
    cat >"$WORK/sshlike" <<EOF
#!/bin/sh
# written by bench/hosts_lib.sh: ssh-like launcher for the test hosts
while [ \$# -gt 0 ]; do
    case \$1 in
        -o|-p|-l|-i|-F|-E) shift 2 ;;
        -*) shift ;;
        *) break ;;
    esac
done
[ \$# -ge 2 ] || { echo "sshlike: usage: sshlike [options] HOST command..." >&2; exit 255; }
h=\$1; shift
exec "$HOSTS_SH" exec "\$h" /bin/sh -c "\$*"
EOF
    chmod +x "$WORK/sshlike"
}

# The launch command of MPI $1 for ranks per host $2 on hosts $3 (a,b,c),
# into the array LAUNCH. Every job is started from inside $H1.
#
# Settings that keep each MPI honest between the test hosts (which share
# the pid space and System V IPC, so shared-memory transports keyed on the
# kernel's boot id or on pids would reach across "hosts"):
#  - MPICH (UCX netmod): UCX_TLS=tcp,self, UCX_NET_DEVICES=eth0. Without
#    them UCX takes the hosts for one node (its "intra-node" protocols:
#    sysv shared memory and cma). Ranks on one host still talk through
#    MPICH's own shared memory (CH4 posix, node from Hydra's host names,
#    segment in the host's private /dev/shm), which cannot cross hosts.
#  - Open MPI: pml ob1 with btl tcp,sm,self (no pml ucx / btl uct), osc
#    rdma (over the tcp btl; not osc ucx), tcp restricted to the hosts'
#    network; sm only between ranks on one host (locality from PRRTE's
#    host names).
#  - dmpi: as it is (libfabric's net provider between hosts, shm on a host).
#  - no MPI binds ranks (Open MPI --bind-to none, DMPI_BIND=0; Hydra does
#    not bind by default): the hosts share the machine's cores, and a
#    binding per host would stack one rank of every host on core 0.
EXTRA_ENV=()   # more VAR=VALUE for dmpi and MPICH (the checks)
make_launch() {
    local key=$1 ppn=$2 hosts=$3 nh np p=${PREFIX_OF[$1]}
    nh=$(tr ',' '\n' <<<"$hosts" | grep -c .)
    np=$((ppn * nh))
    LAUNCH=("$HOSTS_SH" exec "$H1")
    case $key in
        dmpi)
            LAUNCH+=(env DMPI_BIND=0 ${EXTRA_ENV[@]+"${EXTRA_ENV[@]}"} "$p/bin/mpiexec" --launcher-exec "$REPO/tests/hosts/launch"
                     -hosts "$hosts" -ppn "$ppn" -n "$np") ;;
        mpich5)
            LAUNCH+=(env UCX_TLS=tcp,self UCX_NET_DEVICES="$IFACE" ${EXTRA_ENV[@]+"${EXTRA_ENV[@]}"}
                     "$p/bin/mpiexec" -launcher ssh -launcher-exec "$WORK/sshlike" -iface "$IFACE"
                     -hosts "$hosts" -ppn "$ppn" -n "$np") ;;
        ompi5)
            LAUNCH+=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
                     "$p/bin/mpirun" --allow-run-as-root --prefix "$p"
                     --host "$(sed "s/,/:$ppn,/g; s/\$/:$ppn/" <<<"$hosts")" -n "$np" --bind-to none
                     --prtemca plm_ssh_agent "$WORK/sshlike" --prtemca oob_tcp_if_include "$NETWORK"
                     --mca pml ob1 --mca btl tcp,sm,self --mca btl_tcp_if_include "$NETWORK"
                     --mca osc rdma) ;;
    esac
}
