#!/usr/bin/env bash
# `make vm`: boot the guest into an interactive shell.
. "$(dirname "$0")/lib.sh"
if [ ! -t 0 ]; then
	warn "standard input is not a terminal: the guest shell will see EOF and power off"
fi
# make vm ROOT=union: / is the system image with a tmpfs layer (README
# "Union root"), the image built from the initramfs just built
case ${ROOT:-} in
'') ;;
union)
	"$REPO/scripts/build-union-root.sh" "$OUT/vm-initrd.cpio" "$OUT/vm-union-root.img"
	export UNION_ROOT_IMG=$OUT/vm-union-root.img
	;;
*) die "ROOT=$ROOT: the only other root is ROOT=union" ;;
esac
UNION_KERNEL=$OUT/vm-bzImage UNION_KINFO=$OUT/vm-kernel.txt \
	UNION_INITRD=$OUT/vm-initrd.cpio UNION_DISKS=$OUT/vm-disks exec "$REPO/scripts/qemu.sh" vm
