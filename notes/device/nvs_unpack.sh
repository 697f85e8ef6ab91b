#!/bin/bash
# one call per .nvs/partNN (carried); the last one assembles the NVSHMEM wheels into /tmp/nvsite
mkdir -p /tmp/nvs && cp .nvs/part* /tmp/nvs/ && ls /tmp/nvs
if [ $(ls /tmp/nvs | wc -l) -ge 4 ]; then
  mkdir -p /tmp/nvsw && cat /tmp/nvs/part* | tar xf - -C /tmp/nvsw && source .devkit/tools/env.sh && python3 -m pip install -q --no-index --no-deps --target /tmp/nvsite /tmp/nvsw/*.whl && echo "nvshmem at /tmp/nvsite"
fi
