#!/usr/bin/env bash
# One whole build-and-run step under the machine-wide lock, so that two
# sessions (or helpers) sharing the machine never interleave a kernel
# build, an initramfs build and a QEMU run:
#   pipeline.sh check | vm-run SCRIPT | harness-selftest | vm | bench | stress
. "$(dirname "$0")/lib.sh"

what=${1:?usage: pipeline.sh check|vm-run SCRIPT|harness-selftest|vm|bench|stress}
shift
S=$REPO/scripts

build() {	# flavour
	if [ "${CI:-}" = true ]; then
		"$S/tree.sh" reset
	else
		"$S/tree.sh" tree
	fi
	"$S/build-kernel.sh" "$1"
	"$S/build-userspace.sh"
}

locked() {
	case $what in
	check)
		build debug
		# the series must build with the option off, its default
		"$S/build-nounion.sh"
		"$S/check.sh"
		"$S/union-root-test.sh"	# two boots on a union root (README "Union root")
		"$S/crash-reset-test.sh"	# four boots, machine resets (README "Crash by machine reset")
		;;
	vm-run)
		build "${FLAVOUR:-debug}"
		"$S/vm-run.sh" "$@"
		;;
	harness-selftest)
		build debug
		"$S/harness-selftest.sh"
		;;
	bench)
		build bench
		"$S/bench.sh"
		;;
	stress)
		build debug
		"$S/stress.sh"
		;;
	vm-build)
		build "${FLAVOUR:-debug}"
		# private copies: the interactive guest runs without the lock
		cp "$OUT/bzImage" "$OUT/vm-bzImage"
		cp "$OUT/initrd.cpio" "$OUT/vm-initrd.cpio"
		cp "$OUT/kernel.txt" "$OUT/vm-kernel.txt"
		;;
	*)
		die "unknown step $what"
		;;
	esac
}

if [ "$what" = vm ]; then
	"$0" vm-build
	exec "$S/demo-vm.sh"
fi
with_lock locked "$@"
