#!/bin/bash -eu
# ClusterFuzzLite entry point: the build lives in fuzz/build.sh (the same script works for OSS-Fuzz).
exec "$SRC/chunk-contract/fuzz/build.sh"
