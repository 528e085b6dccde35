#!/usr/bin/env bash
# Run a command holding the machine-wide build/QEMU lock (see lib.sh).
. "$(dirname "$0")/lib.sh"
with_lock "$@"
