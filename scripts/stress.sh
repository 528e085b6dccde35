#!/usr/bin/env bash
# `make stress` after the build: boot the debug kernel with union.mode=stress,
# which runs the stress driver (tests/guest/stress/run.sh) over tmpfs, ext4,
# xfs and btrfs layers, and judge the run as `make check` judges its tests
# (scripts/report.sh: TAP, exit status, the end of the run, kernel splats).
#
# Knobs: STRESS_TIME (seconds of load in all, shared by the file systems;
# default 1200), STRESS_FS (comma separated, default tmpfs,ext4,xfs,btrfs),
# STRESS_SEED (default 1).  Logs: out/stress-ttyS1.log (TAP and the
# workloads' output), out/stress-console.log (the kernel's).
. "$(dirname "$0")/lib.sh"

T=${STRESS_TIME:-1200}
[[ $T =~ ^[0-9]+$ ]] || die "STRESS_TIME must be a number of seconds"
append=" union.stress_time=$T"
[ -n "${STRESS_FS:-}" ] && append+=" union.stress_fs=$STRESS_FS"
[ -n "${STRESS_SEED:-}" ] && append+=" union.stress_seed=$STRESS_SEED"
grep -q '^flavour=debug' "$OUT/kernel.txt" 2>/dev/null ||
	warn "out/bzImage is not the debug flavour: no lockdep, KASAN or panic_on_warn"
msg "stress: ${T}s of load in the guest (TAP below; out/stress-ttyS1.log)"
# the checks around the load (populate, fingerprints, verify) take about
# 30 s per file system on top of the load; boot ~30 s
UNION_LOG_TAG=stress UNION_VM_TIMEOUT=${UNION_VM_TIMEOUT:-$((T * 2 + 600))} \
	UNION_APPEND="${UNION_APPEND:-}$append" "$REPO/scripts/qemu.sh" stress
"$REPO/scripts/report.sh" "$OUT/stress-ttyS1.log" "$OUT/stress-console.log" \
	"$OUT/stress-qemu.txt"
