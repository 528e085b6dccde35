#!/usr/bin/env bash
# Run the whole suite in the guest and judge the run.
. "$(dirname "$0")/lib.sh"
"$REPO/scripts/qemu.sh" check
"$REPO/scripts/report.sh" "$OUT/check-ttyS1.log" "$OUT/check-console.log" "$OUT/check-qemu.txt"
