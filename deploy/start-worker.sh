#!/bin/sh
# A demo worker (the `worker` and `gpu-worker` images' command): takes jobs from QUEUE_URL and
# runs them with TensorFlow in a child process.
set -eu
exec tiercards worker
