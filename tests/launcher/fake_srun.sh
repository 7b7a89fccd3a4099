#!/usr/bin/env bash
# A stand-in for srun in the launcher tests (tests/launcher/test_slurm_env.sh
# puts it on PATH as "srun"): checks that mpiexec asks for what its agents
# need - one task on one named node of the allocation, sharing the node,
# no PMI, the environment exported - and runs the agent command here, or on
# test host HOST through $FAKE_SRUN_LAUNCH HOST command... (tests/hosts/launch).
# Logs "HOST OPTIONS..." to $FAKE_SRUN_LOG and its pid to $FAKE_SRUN_PIDS.
# FAKE_SRUN_FAIL=HOST: for that host, print an error as srun does and exit 1.
# Gives the agent the variables srun would: SLURMD_NODENAME, SLURM_STEP_ID,
# SLURM_PROCID, SLURM_NODEID, and CUDA_VISIBLE_DEVICES=$FAKE_SRUN_GPUS if set.
die() { echo "srun: error: fake srun: $*" >&2; exit 1; }
[ -n "${SLURM_JOB_ID:-}${SLURM_JOBID:-}" ] || die "SLURM_JOB_ID not set (srun would make a new allocation)"
for v in SLURM_NTASKS_PER_NODE SLURM_GPUS_PER_TASK SLURM_EXACT; do
    [ -z "${!v+x}" ] || die "$v is set: it would reshape the agent's step"
done
host="" opts=""
declare -A seen
while [ $# -gt 0 ]; do
    case $1 in
        --nodes=1 | --ntasks=1 | --overlap | --mpi=none | --export=ALL | --quiet | --kill-on-bad-exit=1 | --cpu-bind=none)
            seen[$1]=1 ;;
        --nodelist=*) host=${1#--nodelist=} ;;
        -*) die "unexpected option '$1'" ;;
        *) break ;;
    esac
    opts="$opts $1"
    shift
done
for o in --nodes=1 --ntasks=1 --overlap --mpi=none; do [ -n "${seen[$o]:-}" ] || die "missing $o"; done
[ -n "$host" ] || die "no --nodelist"
case $host in *,* | *\[*) die "--nodelist=$host is not one host" ;; esac
[ $# -gt 0 ] || die "no command"
[ -z "${FAKE_SRUN_LOG:-}" ] || echo "$host$opts" >>"$FAKE_SRUN_LOG"
[ -z "${FAKE_SRUN_PIDS:-}" ] || echo $$ >>"$FAKE_SRUN_PIDS"
if [ "${FAKE_SRUN_FAIL:-}" = "$host" ]; then
    echo "srun: error: Unable to create step for job ${SLURM_JOB_ID:-$SLURM_JOBID}: Requested node configuration is not available" >&2
    exit 1
fi
export SLURMD_NODENAME=$host SLURM_STEP_ID=7 SLURM_PROCID=0 SLURM_NODEID=0
[ -z "${FAKE_SRUN_GPUS:-}" ] || export CUDA_VISIBLE_DEVICES=$FAKE_SRUN_GPUS
if [ -n "${FAKE_SRUN_LAUNCH:-}" ]; then exec "$FAKE_SRUN_LAUNCH" "$host" "$@"; fi
exec "$@"
