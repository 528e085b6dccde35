#!/usr/bin/env bash
# Boot real guests that must fail and check that the harness fails them:
# a failing test, a program without a TAP plan, a guest that hangs past
# its timeout, and a WARN in the kernel console while every test passes.
. "$(dirname "$0")/lib.sh"

CFLAGS=(-static -O2 -D_GNU_SOURCE -I"$OUT/uapi-include" -I"$TREE/tools/testing/selftests")
H=$OUT/harness-selftest
rm -rf "$H"; mkdir -p "$H"
pass=0 fail=0

run_case() {	# name timeout expected-failure-text program...
	local name=$1 tmo=$2 want=$3; shift 3
	local root=$H/$name-root p rc=0
	cp -a "$OUT/initramfs" "$root"
	rm -rf "$root/tests"; mkdir "$root/tests"
	for p in "$@"; do
		gcc "${CFLAGS[@]}" -o "$root/tests/$p" "$REPO/tests/harness/$p.c"
	done
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) > "$H/$name.cpio"
	UNION_INITRD=$H/$name.cpio UNION_LOG_TAG=hs-$name UNION_VM_TIMEOUT=$tmo \
		UNION_STREAM=0 "$REPO/scripts/qemu.sh" check >/dev/null 2>&1 || true
	"$REPO/scripts/report.sh" "$OUT/hs-$name-ttyS1.log" "$OUT/hs-$name-console.log" \
		"$OUT/hs-$name-qemu.txt" > "$H/$name.report" 2>&1 || rc=$?
	if [ $rc -ne 0 ] && grep -q "$want" "$H/$name.report"; then
		echo "ok - harness fails a run with $name: $(grep -m1 "$want" "$H/$name.report")"
		pass=$((pass + 1))
	else
		echo "not ok - harness did not fail a run with $name for '$want'"; sed 's/^/    /' "$H/$name.report"
		fail=$((fail + 1))
	fi
}

run_case failing-test 600 "not ok 2 global.fails" failing_test
run_case missing-plan 600 "no TAP plan" noplan_test
run_case guest-timeout 90 "guest: timed out" hang_test
run_case kernel-warn 600 "kernel splat" warn_test
echo "harness self-test: $pass passed, $fail failed"
[ $fail -eq 0 ]
