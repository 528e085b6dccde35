#!/usr/bin/env bash
# Judge a guest run from its logs and print the summary line.
#   report.sh TTYS1_LOG CONSOLE_LOG QEMU_TXT
# Fails (exit 1) on: a "not ok" test, a program with no TAP plan or fewer
# results than planned, a program that exits non-zero or never ends, a
# program named in @@PLAN that never ran, a guest that did not reach
# @@DONE or timed out, and any kernel splat in the console log.
set -euo pipefail
TTYS1=$1 CONSOLE=$2 QEMUTXT=${3:-/dev/null}

# Kernel splats: any of these in the console fails the run.
SPLATS=$(cat "$(dirname "$0")/splats.re")

tr -d '\r' < "$TTYS1" 2>/dev/null | awk -v qemutxt="$(cat "$QEMUTXT" 2>/dev/null)" '
function fail(msg) { failed++; problems[++np] = msg }
function close_block(rc,   n) {
	if (!have_plan) { fail(cur ": no TAP plan"); block_fail = 1 }
	else if (results < plan) {
		fail(cur ": " plan - results " of " plan " planned tests never reported")
		block_fail = 1
	}
	if (rc != "" && rc != 0 && rc != 4 && !block_fail)
		fail(cur ": exited with status " rc)
	ended[cur] = 1; cur = ""
}
/^@@PLAN / { for (i = 2; i <= NF; i++) planned[$i] = 1; next }
/^@@ERROR / { fail("guest: " substr($0, 9)); next }
/^@@KERNEL / { kernel = substr($0, 10); next }
/^@@UPTIME / { uptime = $2; next }
/^@@BEGIN / {
	if (cur != "") { fail(cur ": never finished"); ended[cur] = 1 }
	cur = $2; began[cur] = 1; have_plan = 0; plan = 0; results = 0; block_fail = 0
	t0 = $3
	next
}
/^@@END / {
	# the guest uptime at both ends (guest/init): the time of each program
	if (cur == $2 && t0 != "" && $4 != "")
		times = times sprintf("%s%s %ds", times == "" ? "" : ", ", cur, $4 - t0)
	if (cur == $2) close_block($3)
	next
}
/^@@DONE/ { done = 1; next }
cur != "" && /^1\.\.[0-9]+/ { have_plan = 1; plan = substr($1, 4) + 0; next }
cur != "" && /^not ok [0-9]+/ {
	results++; block_fail = 1; fail(cur ": " $0); next
}
cur != "" && /^ok [0-9]+/ {
	results++
	if ($0 ~ /# [Ss][Kk][Ii][Pp]/) skipped++; else passed++
	next
}
END {
	if (cur != "") { fail(cur ": never finished (guest died or timed out)"); ended[cur] = 1 }
	for (t in planned) if (!(t in began)) fail(t ": never ran")
	if (!done) fail("guest: did not reach the end of the test run")
	if (qemutxt ~ /qemu_rc=(124|137)/) fail("guest: timed out (" qemutxt ")")
	if (kernel != "") print "kernel: " kernel
	if (uptime != "") print "guest booted to its first test in " uptime "s"
	if (times != "") print "seconds per program: " times
	for (i = 1; i <= np; i++) print "FAIL: " problems[i]
	printf "@@COUNTS %d %d %d\n", passed, failed, skipped
}' > "$TTYS1.report"
grep -v '^@@COUNTS' "$TTYS1.report" || true
read -r _ passed failed skipped < <(grep '^@@COUNTS' "$TTYS1.report")

splat=$(grep -nE "$SPLATS" "$CONSOLE" 2>/dev/null | head -20 || true)
# A stall report names a host that did not schedule the vCPU as often as
# a kernel bug: say which kind this is, so that a busy host is not taken
# for a union bug (the run still fails; qemu.sh scales the timeouts so
# that only a starved guest or a real hang gets here).
STARVED='rcu_check_gp_start_stall|INFO: rcu_.* stall|rcu: INFO: .* detected stall|blocked for more than|soft lockup|AE_AML_LOOP_TIMEOUT'
if [ -n "$splat" ] && ! printf '%s\n' "$splat" | grep -vE "$STARVED|Call Trace:" | grep -q .; then
	echo "FAIL: guest starved of CPU (host too busy?), not a test failure; stall report in $CONSOLE:"
	printf '%s\n' "$splat" | sed 's/^/    /'
	failed=$((failed + 1))
elif [ -n "$splat" ]; then
	echo "FAIL: kernel splat in $CONSOLE:"
	printf '%s\n' "$splat" | sed 's/^/    /'
	# The report itself (a lockdep chain, the stack), so that a CI log
	# that keeps only this output still tells what happened.
	first=$(printf '%s\n' "$splat" | grep -vE "$STARVED|Call Trace:" | head -1 | cut -d: -f1)
	# which program ran then: the console stamps the guest uptime, the
	# @@BEGIN/@@END lines carry it too (lanes overlap: all are named)
	at=$(sed -n "${first}s/^\[ *\([0-9.]*\)\].*/\1/p" "$CONSOLE" | head -1)
	if [ -n "$at" ]; then
		during=$(tr -d '\r' < "$TTYS1" | awk -v at="$at" '
			/^@@BEGIN / { b[$2] = $3 }
			/^@@END / && ($2 in b) && b[$2] <= at && at <= $4 { printf "%s%s", n++ ? ", " : "", $2 }')
		echo "it came at ${at}s of guest uptime, during: ${during:-no test program}"
	fi
	echo "the first report ($CONSOLE from line $first):"
	tail -n +"$first" "$CONSOLE" | head -90 | sed 's/^/    /'
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
