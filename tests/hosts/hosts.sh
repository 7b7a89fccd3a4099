#!/usr/bin/env bash
# tests/hosts/hosts.sh: N test "hosts" on this one machine, for cross-host
# tests of dmpi without a cluster. Each host dmpi-hK (K = 1..N) is
#   - a network namespace (/run/netns/dmpi-hK) with lo up and eth0, one end
#     of a veth pair whose other end (dmpi-vK) sits on the bridge dmpibr0 in
#     the root namespace; eth0 is 10.213.0.K/24, the bridge 10.213.0.254
#     (name dmpi-head, plus this machine's own host name);
#   - a UTS namespace (/run/dmpi-hosts/hK.uts) whose host name is dmpi-hK,
#     so gethostname() (MPI_Get_processor_name, node detection) differs;
#   - a mount namespace (/run/dmpi-hosts/hK.mnt) with a private tmpfs on
#     /dev/shm (nothing passes between hosts through shared memory), the
#     hosts file /etc/netns/dmpi-hK/hosts bound over /etc/hosts (every
#     host's name) and a sysfs of its own network namespace on /sys.
# The namespaces are persistent (bound to files), so every command run on a
# host sees the same /dev/shm. Processes, the file system and the pid space
# are shared: a host can see (and signal) the other hosts' processes.
#
#   hosts.sh up [N]            make hosts 1..N (default 3); idempotent;
#                              exit 77 with "SKIP: ..." where namespaces,
#                              veths or bridges cannot be made
#   hosts.sh exec HOST CMD...  run CMD on HOST (dmpi-hK or hK), argv passed
#                              as is, like ssh: the launcher command
#                              `mpiexec --launcher-exec "tests/hosts/hosts.sh exec"`
#   hosts.sh shm HOST          list HOST's /dev/shm
#   hosts.sh ps HOST           processes in HOST's network namespace
#   hosts.sh list              the hosts that exist, with their addresses
#   hosts.sh down              kill whatever runs on the hosts and remove
#                              everything; idempotent, always safe
# Needs root, iproute2 (ip), util-linux (nsenter, unshare, mount).
# Settings (environment): DMPI_HOSTS_MTU (default 1500).
set -uo pipefail

PREFIX=dmpi-h                 # host names: dmpi-h1, dmpi-h2, ...
BR=dmpibr0                    # the bridge in the root namespace
VETH=dmpi-v                   # root-side veth ends: dmpi-v1, ...
NET=10.213.0                  # hosts are $NET.K/24, the bridge $NET.254
HEAD_ADDR=$NET.254
RUN=/run/dmpi-hosts           # namespace files hK.mnt, hK.uts
MTU=${DMPI_HOSTS_MTU:-1500}
SELF=$(readlink -f "${BASH_SOURCE[0]}")

die() { echo "hosts.sh: $*" >&2; exit 1; }
skip() { echo "SKIP: cannot make network namespaces: $*"; down_quiet; exit 77; }

# need WHAT CMD...: run a step that only an unprivileged or restricted
# machine refuses (namespaces, links, mounts); its failure is a SKIP.
need() {
    local what=$1 err rc; shift
    err=$("$@" 2>&1 >/dev/null) && return 0
    rc=$?
    skip "$what: $(echo "${err:-exit status $rc}" | head -1)"
}

# The host number K from dmpi-hK, hK or K.
host_num() {
    local h=$1
    case $h in
        "$PREFIX"[0-9]*) h=${h#"$PREFIX"} ;;
        h[0-9]*) h=${h#h} ;;
    esac
    [[ $h =~ ^[1-9][0-9]*$ ]] || die "not a test host: $1 (want ${PREFIX}K or hK)"
    echo "$h"
}

# The hosts that exist, as numbers, ascending.
existing() {
    local f
    for f in /run/netns/"$PREFIX"*; do
        [ -e "$f" ] && echo "${f#/run/netns/"$PREFIX"}"
    done | sort -n
}

is_mounted() { mountpoint -q "$1" 2>/dev/null; }

write_hosts_files() { # every host's /etc/hosts lists all hosts 1..max
    local max=$1 k j f me
    me=$(hostname 2>/dev/null || true)
    for ((k = 1; k <= max; k++)); do
        [ -e "/run/netns/$PREFIX$k" ] || continue
        f=/etc/netns/$PREFIX$k/hosts
        mkdir -p "/etc/netns/$PREFIX$k"
        {   # written in place (same inode): a bind mount of it sees the change
            echo "# written by tests/hosts/hosts.sh for $PREFIX$k"
            echo "127.0.0.1 localhost"
            echo "::1 localhost ip6-localhost ip6-loopback"
            case $me in ""|localhost|"$PREFIX"*) echo "$HEAD_ADDR dmpi-head" ;;
                *) echo "$HEAD_ADDR dmpi-head $me" ;; esac
            for ((j = 1; j <= max; j++)); do
                [ -e "/run/netns/$PREFIX$j" ] && echo "$NET.$j $PREFIX$j h$j"
            done
        } > "$f"
    done
}

make_host() {
    local k=$1 ns=$PREFIX$1 v=$VETH$1
    if [ ! -e "/run/netns/$ns" ]; then
        need "ip netns add $ns" ip netns add "$ns"
        echo "made network namespace $ns"
    fi
    if ! ip link show "$v" >/dev/null 2>&1; then
        ip netns exec "$ns" ip link del eth0 >/dev/null 2>&1
        need "veth $v" ip link add "$v" mtu "$MTU" type veth peer name eth0 mtu "$MTU" netns "$ns"
        echo "made veth $v <-> $ns:eth0"
    fi
    need "veth $v on $BR" ip link set "$v" master "$BR" up
    need "lo in $ns" ip -n "$ns" link set lo up
    need "eth0 in $ns" ip -n "$ns" link set eth0 up
    ip -n "$ns" -4 addr show dev eth0 | grep -q "inet $NET.$k/" ||
        need "address of $ns" ip -n "$ns" addr add "$NET.$k/24" dev eth0
    if ! is_mounted "$RUN/h$k.uts"; then
        touch "$RUN/h$k.uts"
        need "UTS namespace of $ns" unshare --uts="$RUN/h$k.uts" hostname "$ns"
        echo "made UTS namespace $RUN/h$k.uts (host name $ns)"
    fi
}

make_mount_ns() { # after the hosts files exist: they are bound in here
    local k=$1 ns=$PREFIX$1
    is_mounted "$RUN/h$k.mnt" && return 0
    touch "$RUN/h$k.mnt"
    # Inside the new namespace: its own /dev/shm, /etc/hosts and /sys (of
    # its network namespace, as `ip netns exec` does), and no view of the
    # other hosts' namespace files (copies of them would keep those
    # namespaces alive after down).
    need "mount namespace of $ns" nsenter --net="/run/netns/$ns" \
        unshare --mount="$RUN/h$k.mnt" --propagation private sh -ec "
            mount -t tmpfs -o mode=1777,nosuid,nodev dmpi-shm-h$k /dev/shm
            mount --bind /etc/netns/$ns/hosts /etc/hosts
            umount -l /sys && mount -t sysfs sysfs-$ns /sys
            umount -l $RUN
            for f in /run/netns/*; do
                ! mountpoint -q \"\$f\" || umount -l \"\$f\"
            done"
    echo "made mount namespace $RUN/h$k.mnt (private /dev/shm, /etc/hosts of $ns)"
}

cmd_up() {
    local n=${1:-3} k max
    [[ $n =~ ^[1-9][0-9]*$ ]] && [ "$n" -le 250 ] || die "up: N must be 1..250"
    [ "$(id -u)" = 0 ] || skip "not root"
    for k in ip nsenter unshare mount umount mountpoint; do
        command -v "$k" >/dev/null || skip "no $k"
    done
    mkdir -p "$RUN" /etc/netns || skip "cannot make $RUN"
    if ! is_mounted "$RUN"; then # unshare --mount=FILE needs a private mount
        need "bind $RUN" mount --bind "$RUN" "$RUN"
    fi
    need "make $RUN private" mount --make-private "$RUN"
    readlink /proc/self/ns/mnt > "$RUN/root-mnt-ns" # for exec inside a host
    if ! ip link show "$BR" >/dev/null 2>&1; then
        need "bridge $BR" ip link add "$BR" mtu "$MTU" type bridge stp_state 0 forward_delay 0
        echo "made bridge $BR"
    fi
    ip -4 addr show dev "$BR" | grep -q "inet $HEAD_ADDR/" ||
        need "address of $BR" ip addr add "$HEAD_ADDR/24" dev "$BR"
    need "bridge up" ip link set "$BR" up
    for ((k = 1; k <= n; k++)); do make_host "$k"; done
    max=$(existing | tail -1)
    write_hosts_files "$max"
    for ((k = 1; k <= n; k++)); do make_mount_ns "$k"; done
    cmd_list
}

cmd_list() {
    local k
    for k in $(existing); do
        printf '%s%s %s.%s  (alias h%s)%s\n' "$PREFIX" "$k" "$NET" "$k" "$k" \
            "$(is_mounted "$RUN/h$k.mnt" || echo "  INCOMPLETE: run up again")"
    done
    ip link show "$BR" >/dev/null 2>&1 && echo "bridge $BR $HEAD_ADDR (dmpi-head)"
}

# Where exec starts from: the root mount namespace. Inside a host (nested
# use, e.g. an mpiexec run on dmpi-h1 that starts ranks on dmpi-h2) the
# other hosts' namespace files are not mounted, so enter the root mount
# namespace through any process that is in it first.
cmd_exec() {
    [ $# -ge 2 ] || die "usage: hosts.sh exec HOST CMD [ARGS...]"
    local k ns root pid f
    k=$(host_num "$1") || exit 1
    shift
    ns=$PREFIX$k
    if ! is_mounted "$RUN/h$k.mnt"; then
        root=$(cat "$RUN/root-mnt-ns" 2>/dev/null) || die "$ns does not exist (run: hosts.sh up)"
        if [ "$(readlink /proc/self/ns/mnt)" != "$root" ]; then
            for f in /proc/[0-9]*/ns/mnt; do
                [ "$(readlink "$f" 2>/dev/null)" = "$root" ] || continue
                pid=${f#/proc/}; pid=${pid%%/*}
                exec nsenter --target "$pid" --mount --wd="$PWD" -- "$SELF" exec "$ns" "$@"
            done
            die "exec $ns: no process of the root mount namespace left to enter it from"
        fi
        die "$ns does not exist (run: hosts.sh up)"
    fi
    # --wd: the caller's directory (setns into a mount namespace moves to /).
    exec nsenter --net="/run/netns/$ns" --uts="$RUN/h$k.uts" --mount="$RUN/h$k.mnt" \
        --wd="$PWD" -- "$@"
}

cmd_shm() {
    [ $# = 1 ] || die "usage: hosts.sh shm HOST"
    cmd_exec "$1" ls -A /dev/shm
}

# Processes of host K: in its network namespace or in its mount namespace.
host_pids() {
    local k=$1 mnt pid f
    ip netns pids "$PREFIX$k" 2>/dev/null
    if is_mounted "$RUN/h$k.mnt"; then
        mnt="mnt:[$(stat -L -c %i "$RUN/h$k.mnt")]"
        for f in /proc/[0-9]*/ns/mnt; do
            [ "$(readlink "$f" 2>/dev/null)" = "$mnt" ] || continue
            pid=${f#/proc/}; echo "${pid%%/*}"
        done
    fi
}

cmd_ps() {
    [ $# = 1 ] || die "usage: hosts.sh ps HOST"
    local k pids
    k=$(host_num "$1") || exit 1
    [ -e "/run/netns/$PREFIX$k" ] || die "$PREFIX$k does not exist"
    pids=$(host_pids "$k" | sort -nu | tr '\n' ',')
    [ -n "$pids" ] && ps -o pid,ppid,etime,args -p "${pids%,}"
    return 0
}

down_quiet() { cmd_down >/dev/null 2>&1; }

cmd_down() {
    local k pids sig f
    local hosts
    hosts=$( (existing; for f in "$RUN"/h*.mnt "$RUN"/h*.uts; do
                  [ -e "$f" ] && { f=${f##*/h}; echo "${f%.*}"; }; done) | sort -nu)
    for sig in TERM KILL; do # whatever still runs on a host
        pids=$(for k in $hosts; do host_pids "$k"; done | sort -nu)
        [ -n "$pids" ] || break
        echo "killing ($sig) $(echo $pids)"
        kill -"$sig" $pids 2>/dev/null
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            pids=$(for k in $hosts; do host_pids "$k"; done | sort -nu)
            [ -n "$pids" ] || break
            sleep 0.2
        done
    done
    for k in $hosts; do
        for f in "$RUN/h$k.mnt" "$RUN/h$k.uts"; do
            is_mounted "$f" && umount "$f" && echo "removed $f"
        done
        ip link del "$VETH$k" >/dev/null 2>&1 && echo "removed veth $VETH$k"
        if [ -e "/run/netns/$PREFIX$k" ]; then
            ip netns del "$PREFIX$k" && echo "removed network namespace $PREFIX$k"
        fi
        rm -rf "/etc/netns/$PREFIX$k"
    done
    for f in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep "^$VETH[0-9]"); do
        ip link del "$f" && echo "removed veth $f"
    done
    ip link show "$BR" >/dev/null 2>&1 && ip link del "$BR" && echo "removed bridge $BR"
    if [ -d "$RUN" ]; then
        while is_mounted "$RUN"; do umount "$RUN" || break; done
        rm -rf "$RUN" && echo "removed $RUN"
    fi
    rmdir /etc/netns 2>/dev/null
    return 0
}

case ${1:-} in
    up) shift; cmd_up "$@" ;;
    exec) shift; cmd_exec "$@" ;;
    shm) shift; cmd_shm "$@" ;;
    ps) shift; cmd_ps "$@" ;;
    list) shift; cmd_list ;;
    down) shift; cmd_down ;;
    *) sed -n '2,/^set -uo/p' "$SELF" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
