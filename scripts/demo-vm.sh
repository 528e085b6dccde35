#!/usr/bin/env bash
# `make vm`: boot the guest into an interactive shell.
. "$(dirname "$0")/lib.sh"
if [ ! -t 0 ]; then
	warn "standard input is not a terminal: the guest shell will see EOF and power off"
fi
UNION_KERNEL=$OUT/vm-bzImage UNION_KINFO=$OUT/vm-kernel.txt \
	UNION_INITRD=$OUT/vm-initrd.cpio UNION_DISKS=$OUT/vm-disks exec "$REPO/scripts/qemu.sh" vm
