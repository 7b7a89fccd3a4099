#!/bin/sh
# A stand-in for ssh in the launcher tests: "fake_ssh.sh HOST command args..."
# ignores HOST and runs the command here (mpiexec --launcher-exec).
shift
exec "$@"
