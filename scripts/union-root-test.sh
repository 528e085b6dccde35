#!/usr/bin/env bash
# make check, after check.sh: a live system on a union root (README "Union
# root").  Builds the read-only system image from out/initrd.cpio
# (build-union-root.sh), boots the guest on it twice -- / is the image with
# a tmpfs union layer, made by the initramfs (guest/init, union.root=) --
# and runs tests/guest/union_root_test.c in each boot: "-f boot1" installs a
# package, edits /etc, removes a system directory, ...; "-f boot2" checks
# that the second boot sees the image as it was built.  Each boot is judged
# by report.sh (TAP, exit status, end of run, kernel splats in its console
# log); the image file must not change.  Logs: out/union-root-{1,2}-*.log.
#
# With TESTS set (a targeted make check), runs only if TESTS names
# union_root_test.
. "$(dirname "$0")/lib.sh"

NAME=union_root_test
boot_step_needs $NAME "union root"
IMG=$OUT/union-root.img
"$REPO/scripts/build-union-root.sh" "$OUT/initrd.cpio" "$IMG"
before=$(sha256sum < "$IMG")

passed=0 failed=0 skipped=0
for boot in 1 2; do
	tag=union-root-$boot
	script=$OUT/$tag.sh
	cat > "$script" <<EOF
echo "@@UPTIME \$(cut -d' ' -f1 /proc/uptime)"
echo "@@PLAN $NAME"
echo "@@BEGIN $NAME"
UNION_ROOT_BOOT=$boot /tests/$NAME -f boot$boot 2>&1
echo "@@END $NAME \$?"
echo "@@DONE"
EOF
	msg "union root: boot $boot of 2 (out/$tag-ttyS1.log)"
	UNION_ROOT_IMG=$IMG UNION_LOG_TAG=$tag \
		UNION_VM_TIMEOUT=${UNION_ROOT_TIMEOUT:-600} \
		"$REPO/scripts/qemu.sh" run "$script"
	judge_boot "union root, boot $boot" "$tag"
done

if [ "$(sha256sum < "$IMG")" = "$before" ]; then
	passed=$((passed + 1))
else
	echo "FAIL: union root: the read-only image $IMG changed"
	failed=$((failed + 1))
fi
echo "union root: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
