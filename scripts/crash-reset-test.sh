#!/usr/bin/env bash
# make check, after union-root-test.sh: union changes cut by a real machine
# reset, checked by the next boot on the same disks (README "Crash by
# machine reset").  Four boots on one set of scratch disk images in
# out/reset-disks (formatted for the first boot only, then booted as the
# reset left them: qemu.sh UNION_KEEP_DISKS=1), each running
# tests/guest/union_reset_test.c:
#
#   boot 1: cut ext4          boot 2: check ext4, cut xfs
#   boot 3: check xfs, cut btrfs   boot 4: check btrfs
#
# A cut resets the guest with sysrq-b in the middle of a copy-up and a storm
# of union changes; it never reaches the end of its script, so it is judged
# by its own marker (the "@@RESET-CUT ..." line printed just before the
# reset, which is passed on to the next boot's check), the kernel's
# "sysrq: Resetting" on the console and QEMU's exit, and the kernel splats
# of report.sh.  The checks (and everything each boot ran before its cut)
# are judged by report.sh in full.  Logs: out/crash-reset-{1..4}-*.log.
#
# With TESTS set (a targeted make check), runs only if TESTS names
# union_reset_test.
. "$(dirname "$0")/lib.sh"

NAME=union_reset_test
boot_step_needs $NAME "crash reset"
DISKS=$OUT/reset-disks
FS=(ext4 xfs btrfs)

passed=0 failed=0 skipped=0
fail() { echo "FAIL: crash reset, boot $boot: $*"; failed=$((failed + 1)); }
record=
for boot in 1 2 3 4; do
	check_fs='' cut_fs=''
	[ "$boot" -gt 1 ] && check_fs=${FS[boot - 2]}
	[ "$boot" -le 3 ] && cut_fs=${FS[boot - 1]}
	tag=crash-reset-$boot
	script=$OUT/$tag.sh
	# The check runs first and ends with @@DONE, so that report.sh judges
	# it whole; the cut comes after it and never ends.
	{
		# shellcheck disable=SC2016  # expanded in the guest
		echo 'echo "@@UPTIME $(cut -d" " -f1 /proc/uptime)"'
		echo "echo \"@@PLAN ${check_fs:+$NAME}\""
		if [ -n "$check_fs" ]; then
			echo "echo \"@@BEGIN $NAME\""
			echo "UNION_RESET_PHASE=check UNION_RESET_FS=$check_fs UNION_RESET_CUT='$record' /tests/$NAME 2>&1"
			echo "echo \"@@END $NAME \$?\""
		fi
		echo 'echo "@@DONE"'
		if [ -n "$cut_fs" ]; then
			echo "echo \"@@CUT-BEGIN $cut_fs\""
			echo "UNION_RESET_PHASE=cut UNION_RESET_FS=$cut_fs /tests/$NAME 2>&1"
			echo "echo \"@@CUT-END $cut_fs \$?\""
		fi
	} > "$script"
	keep=0
	[ "$boot" -gt 1 ] && keep=1
	msg "crash reset: boot $boot of 4:${check_fs:+ check $check_fs}${cut_fs:+ cut $cut_fs} (out/$tag-ttyS1.log)"
	UNION_DISKS=$DISKS UNION_KEEP_DISKS=$keep UNION_LOG_TAG=$tag \
		UNION_VM_TIMEOUT=${UNION_RESET_TIMEOUT:-900} \
		"$REPO/scripts/qemu.sh" run "$script"
	log=$OUT/$tag-ttyS1.log console=$OUT/$tag-console.log

	# the check part and the kernel log of the whole boot
	judge_boot "crash reset, boot $boot" "$tag"
	[ -n "$cut_fs" ] || continue

	# the cut: set up, marker printed, then reset (no end of the script)
	record=
	cut=$(tr -d '\r' < "$log" | sed -n "/^@@CUT-BEGIN $cut_fs\$/,\$p")
	if [ -z "$cut" ]; then
		fail "cut $cut_fs: never began"
		continue
	fi
	ok=1
	# written= (the top file system's growth) is negative where the
	# storm freed more room than the copy took (btrfs, seen in CI)
	rec=$(sed -n "s/^@@RESET-CUT \(fs=$cut_fs [a-z0-9= -]*\)\$/\1/p" <<<"$cut" | tail -1)
	if [ -z "$rec" ]; then
		fail "cut $cut_fs: no @@RESET-CUT line: the cut was not made"
		ok=0
	fi
	if grep -q '^not ok' <<<"$cut"; then
		fail "cut $cut_fs: $(grep '^not ok' <<<"$cut" | head -3 | tr '\n' ' ')"
		ok=0
	fi
	if grep -q '^@@CUT-END' <<<"$cut"; then
		fail "cut $cut_fs: the guest was not reset (the program ended)"
		ok=0
	fi
	if ! grep -q 'sysrq: Resetting' "$console"; then
		fail "cut $cut_fs: no \"sysrq: Resetting\" in $console"
		ok=0
	fi
	if ! grep -q '^qemu_rc=0 ' "$OUT/$tag-qemu.txt"; then
		fail "cut $cut_fs: QEMU did not end by itself ($(cat "$OUT/$tag-qemu.txt"))"
		ok=0
	fi
	if [ "$ok" = 1 ]; then
		echo "crash reset, boot $boot: cut $cut_fs: $rec"
		passed=$((passed + 1))
		record=$rec
	fi
done
echo "crash reset: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
