# Sourced by test_launcher.sh, test_hosts.sh and test_slurm_env.sh: the
# helper program (tests/launcher/pmi_prog.c with the PMI client and the
# knob table it reads DMPI_PMI* through, src/core/knob.c, built with cc
# into $TMP, its path in $P) and the case counters. Needs SRC, TMP;
# LABEL prefixes each case's name.
P=$TMP/pmi_prog
${CC:-cc} -std=c11 -O1 -D_GNU_SOURCE -Wall -I"$SRC/src/pmi" -I"$SRC/src" -I"$SRC/include" \
    "$SRC/tests/launcher/pmi_prog.c" "$SRC"/src/core/knob.c \
    "$SRC"/src/pmi/pmi.c "$SRC"/src/pmi/pmi1.c "$SRC"/src/pmi/pmi2.c \
    "$SRC"/src/pmi/pmi_sock.c "$SRC"/src/pmi/pmi_wire.c -o "$P" -pthread || {
    echo "FAIL: cannot build the helper program"
    exit 1
}

# mpiexec must not see a Slurm allocation the tests run in (test_slurm_env.sh
# makes its own) nor a launcher choice
unset SLURM_JOB_ID SLURM_JOBID DMPI_LAUNCHER

npass=0
nfail=0
pass() { echo "PASS: ${LABEL:-}$1"; npass=$((npass + 1)); }
fail() { echo "FAIL: ${LABEL:-}$1: $2"; nfail=$((nfail + 1)); }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
