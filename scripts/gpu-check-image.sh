#!/usr/bin/env bash
# bench/gpu_check.py inside an image rather than on the host (the second half of `make gpu-check`):
# the GPU worker image's own TensorFlow and CUDA wheels, on the GPUs docker passes it.
#
#   scripts/gpu-check-image.sh IMAGE [docker run options...]     e.g. tiercards:gpu-worker --gpus all
#
# Its exit status is the check's: 0 within tolerance, 1 outside it, 3 no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
image="${1:?usage: gpu-check-image.sh IMAGE [docker run options...]}"
shift
exec docker run --rm --network host "$@" \
  -v "$PWD/bench:/srv/tiercards/bench:ro" "$image" python3 bench/gpu_check.py
