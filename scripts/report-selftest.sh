#!/usr/bin/env bash
# Feed report.sh synthetic guest logs and check its verdict on each: the
# judge of every run must itself fail what should fail.
set -euo pipefail
R=$(cd "$(dirname "$0")" && pwd)/report.sh
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
pass=0 fail=0

good_prog() {	# name
	printf '@@BEGIN %s\nTAP version 13\n1..2\nok 1 a\nok 2 b # SKIP no xfs\n@@END %s 0\n' "$1" "$1"
}
ok_console='[    0.000000] Linux version 6.12.118
[    1.000000] Run /init as init process'

case_() {	# name expect_rc expect_summary ttyS1 console [qemu.txt]
	local name=$1 want_rc=$2 want_sum=$3 rc=0 out
	printf '%s\n' "$4" > "$W/tty"; printf '%s\n' "$5" > "$W/con"
	printf '%s\n' "${6:-qemu_rc=0 seconds=1}" > "$W/q"
	out=$("$R" "$W/tty" "$W/con" "$W/q" 2>&1) || rc=$?
	if [ "$rc" = "$want_rc" ] && [ "$(printf '%s\n' "$out" | tail -1)" = "$want_sum" ]; then
		echo "ok - report: $name"; pass=$((pass + 1))
	else
		echo "not ok - report: $name (rc $rc, want $want_rc)"; printf '%s\n' "$out" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
}

case_ "clean run passes" 0 "2 passed, 0 failed, 2 skipped" \
	"@@PLAN t1 t2
$(good_prog t1)
$(good_prog t2)
@@DONE" "$ok_console"

# guest/init: a program run in two lanes is two plan names, each judged;
# uptimes on @@BEGIN/@@END give the seconds of each program
lane_prog() {	# name uptime-at-begin uptime-at-end
	printf '@@BEGIN %s %s\n1..1\nok 1 a\n@@END %s 0 %s\n' "$1" "$2" "$1" "$3"
}
case_ "lanes and times" 0 "3 passed, 0 failed, 1 skipped" \
	"@@PLAN t1 f:1 f:2
$(good_prog t1)
$(lane_prog f:1 10.5 700.2)
$(lane_prog f:2 10.6 650.0)
@@DONE" "$ok_console"
case_ "a lane that never ran fails the run" 1 "2 passed, 1 failed, 1 skipped" \
	"@@PLAN t1 f:1 f:2
$(good_prog t1)
$(lane_prog f:1 10.5 700.2)
@@DONE" "$ok_console"

case_ "a failing test fails the run" 1 "2 passed, 1 failed, 1 skipped" \
	"@@PLAN t1 t2
$(good_prog t1)
@@BEGIN t2
1..2
ok 1 x
not ok 2 y
@@END t2 1
@@DONE" "$ok_console"

case_ "a missing TAP plan fails the run" 1 "2 passed, 1 failed, 1 skipped" \
	"@@PLAN t1 t2
$(good_prog t1)
@@BEGIN t2
ok 1 x
@@END t2 0
@@DONE" "$ok_console"

case_ "a test that never reported fails the run" 1 "3 passed, 1 failed, 1 skipped" \
	"@@PLAN t1 t2
$(good_prog t1)
@@BEGIN t2
1..3
ok 1 x
ok 2 y
@@END t2 139
@@DONE" "$ok_console"

case_ "a program that never ran fails the run" 1 "1 passed, 1 failed, 1 skipped" \
	"@@PLAN t1 t2
$(good_prog t1)
@@DONE" "$ok_console"

case_ "a guest that died mid-test fails the run" 1 "2 passed, 2 failed, 0 skipped" \
	"@@PLAN t1
@@BEGIN t1
1..5
ok 1 a
ok 2 b" "$ok_console"

case_ "a guest timeout fails the run" 1 "1 passed, 3 failed, 1 skipped" \
	"@@PLAN t1 t2
$(good_prog t1)
@@BEGIN t2
1..1" "$ok_console" "qemu_rc=124 seconds=2400 timeout=2400"

case_ "a non-zero exit without not-ok fails" 1 "1 passed, 1 failed, 1 skipped" \
	"@@PLAN t1
$(good_prog t1 | sed 's/@@END t1 0/@@END t1 2/')
@@DONE" "$ok_console"

for splat in "WARNING: CPU: 0 PID: 1 at fs/namei.c:100 foo+0x1/0x2" \
	"BUG: KASAN: slab-use-after-free in union_lookup+0x10/0x20" \
	"WARNING: possible circular locking dependency detected" \
	"BUG: sleeping function called from invalid context at mm/slab.c:1" \
	"INFO: task sh:42 blocked for more than 120 seconds." \
	"Oops: general protection fault, probably for non-canonical address"; do
	case_ "console splat: ${splat:0:40}" 1 "2 passed, 1 failed, 2 skipped" \
		"@@PLAN t1 t2
$(good_prog t1)
$(good_prog t2)
@@DONE" "$ok_console
[    5.000000] $splat
[    5.000001] Call Trace:"
done

# A stall alone is reported as a starved guest, distinct from a kernel bug;
# a stall next to a real splat is still a kernel splat.
case_starved() {	# name want-text console-extra
	local rc=0 out
	printf '%s\n' "@@PLAN t1
$(good_prog t1)
@@DONE" > "$W/tty"
	printf '%s\n%s\n' "$ok_console" "$3" > "$W/con"
	printf 'qemu_rc=0 seconds=1\n' > "$W/q"
	out=$("$R" "$W/tty" "$W/con" "$W/q" 2>&1) || rc=$?
	if [ $rc = 1 ] && printf '%s\n' "$out" | grep -q "$2"; then
		echo "ok - report: $1"; pass=$((pass + 1))
	else
		echo "not ok - report: $1"; printf '%s\n' "$out" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
}
case_starved "an RCU gp-start stall is a starved guest" "guest starved of CPU" \
	"[   9.0] WARNING: CPU: 1 PID: 0 at kernel/rcu/tree_stall.h:1000 rcu_check_gp_start_stall+0x1/0x2
[   9.1] Call Trace:"
case_starved "a stall next to a KASAN report is a kernel splat" "kernel splat in" \
	"[   9.0] INFO: rcu_preempt self-detected stall on CPU
[   9.1] BUG: KASAN: use-after-free in union_lookup+0x1/0x2"

# A splat names the program that ran when it came (by the guest uptime on
# both logs) and prints the report itself, not only its first line.
printf '%s\n' "@@PLAN t1 t2
@@BEGIN t1 3.0
1..1
ok 1 a
@@END t1 0 4.5
@@BEGIN t2 4.5
1..1
ok 1 b
@@END t2 0 9.0
@@DONE" > "$W/tty"
printf '%s\n' "$ok_console
[    5.250000] WARNING: possible circular locking dependency detected
[    5.250001] sh/42 is trying to acquire lock:
[    5.250002] but task is already holding lock:" > "$W/con"
out=$("$R" "$W/tty" "$W/con" "$W/q" 2>&1) || true
if printf '%s\n' "$out" | grep -q "at 5.250000s of guest uptime, during: t2$" &&
   printf '%s\n' "$out" | grep -q "but task is already holding lock:"; then
	echo "ok - report: a splat names its program and shows its report"; pass=$((pass + 1))
else
	echo "not ok - report: a splat names its program and shows its report"
	printf '%s\n' "$out" | sed 's/^/    /'; fail=$((fail + 1))
fi

echo "report self-test: $pass passed, $fail failed"
[ $fail -eq 0 ]
