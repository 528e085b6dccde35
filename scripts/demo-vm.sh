#!/usr/bin/env bash
# `make vm`: boot the guest into an interactive shell.
. "$(dirname "$0")/lib.sh"
if [ ! -t 0 ]; then
	warn "standard input is not a terminal: the guest shell will see EOF and power off"
fi
exec "$REPO/scripts/qemu.sh" vm
