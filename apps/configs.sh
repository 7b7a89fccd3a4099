# shellcheck shell=bash
# apps/configs.sh: the application suite's configurations, in one place for
# apps/demo.sh, apps/run.sh and bench/profile_overhead.sh (sourced, not
# run). Each entry is "name|program and arguments", in table order:
# APP_CONFIGS_SMALL at the one-rank-checked sizes of a few seconds (demo,
# comparisons), APP_CONFIGS_TINY at the test sizes (trying a script).
# shellcheck disable=SC2034
APP_CONFIGS_SMALL=(
  "stencil3d-funneled|stencil -n 96 -i 100"
  "stencil2d-multiple-pers|stencil -d 2 -n 1024 -i 100 -t multiple -p"
  "fft2d-alltoall|fft2d -n 1024 -i 5"
  "fft2d-p2p|fft2d -n 1024 -i 5 -t p2p"
  "presta_com|presta_com -M 4M -s 10"
  "lu|lu -n 1024 -b 64"
  "bfs|bfs -s 16 -r 16"
)
# shellcheck disable=SC2034
APP_CONFIGS_TINY=(
  "stencil3d-funneled|stencil -n 24 -i 4"
  "stencil2d-multiple-pers|stencil -d 2 -n 60 -i 4 -t multiple -p"
  "fft2d-alltoall|fft2d -n 60 -i 2"
  "fft2d-p2p|fft2d -n 60 -i 2 -t p2p"
  "presta_com|presta_com -M 64K -s 3"
  "lu|lu -n 120 -b 8"
  "bfs|bfs -s 10 -r 4"
)
