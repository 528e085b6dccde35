#!/usr/bin/env bash
# Run a host shell script inside the guest as root; exit with its status.
. "$(dirname "$0")/lib.sh"
UNION_STREAM=0 UNION_VM_TIMEOUT=${UNION_VM_TIMEOUT:-1200} "$REPO/scripts/qemu.sh" run "$1"
log=$OUT/run-ttyS1.log
tr -d '\r' < "$log" | grep -v '^@@'
st=$(tr -d '\r' < "$log" | sed -n 's/^@@EXIT \([0-9]*\)$/\1/p' | tail -1)
rc=0
if grep -nE "$(cat "$REPO/scripts/splats.re")" "$OUT/run-console.log" >&2; then
	echo "vm-run: kernel splat in out/run-console.log" >&2
	rc=1
fi
if [ -z "$st" ]; then
	echo "vm-run: the script did not finish (guest died or timed out; see out/run-console.log)" >&2
	exit 1
fi
[ "$st" -eq 0 ] && [ $rc -ne 0 ] && st=1
exit "$st"
