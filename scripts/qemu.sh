#!/usr/bin/env bash
# Boot out/bzImage + out/initrd.cpio in QEMU (TCG: KVM hangs on these
# machines; QEMU_ACCEL=kvm to override).
#
#   qemu.sh check            run /tests in the guest; logs in out/
#   qemu.sh run SCRIPT       run a host shell script in the guest as root,
#                            print its output, exit with its status
#   qemu.sh vm               interactive shell on the serial console
#
# UNION_ROOT_IMG=IMAGE (any mode): boot on a union root, IMAGE read-only
# as /dev/vdd with a tmpfs layer on top (README "Union root").
# UNION_DISKS=DIR, UNION_KEEP_DISKS=1: where the scratch disk images are,
# and boot on them as they are instead of formatting them (see below).
#
# The kernel console always goes to out/<mode>-console.log; test and
# script output travels on the second serial port (out/<mode>-ttyS1.log),
# so kernel messages never interleave with TAP.
. "$(dirname "$0")/lib.sh"

MODE=${1:-check}
TIMEOUT=${UNION_VM_TIMEOUT:-3600}
MEM=${UNION_VM_MEM:-2G}
SMP=${UNION_VM_SMP:-2}
ACCEL=${QEMU_ACCEL:-tcg,thread=multi}
need_pkgs "${GUEST_PKGS[@]}"
KERNEL=${UNION_KERNEL:-$OUT/bzImage}
KINFO=${UNION_KINFO:-$OUT/kernel.txt}
[ -f "$KERNEL" ] || die "no $KERNEL (make kernel)"
[ -f "$OUT/initrd.cpio" ] || die "no out/initrd.cpio (make userspace)"

TAG=${UNION_LOG_TAG:-$MODE}
CONSOLE=$OUT/$TAG-console.log
TTYS1=$OUT/$TAG-ttyS1.log
rm -f "$CONSOLE" "$TTYS1"

# Fresh scratch disks every boot: sparse files, formatted on the host, in
# UNION_DISKS (default out/disks).  UNION_KEEP_DISKS=1 boots on the images
# already there, as a previous boot left them (scripts/crash-reset-test.sh:
# the next boot after a machine reset, which replays the journals).
D=${UNION_DISKS:-$OUT/disks}
mkdir -p "$D"
mkdisk() {	# name size mkfs...
	local f=$D/$1.img
	if [ "${UNION_KEEP_DISKS:-0}" = 1 ]; then
		[ -f "$f" ] || die "UNION_KEEP_DISKS=1: no disk image $f"
		return 0
	fi
	rm -f "$f"; truncate -s "$2" "$f"; shift 2
	"$@" "$f" >/dev/null 2>&1 || die "$* failed"
}
mkdisk ext4 1G mkfs.ext4 -q -F -O dir_index -L uext4
mkdisk xfs 1G mkfs.xfs -q -f -m reflink=1 -L uxfs
mkdisk btrfs 1G mkfs.btrfs -q -f -L ubtrfs

INITRD=${UNION_INITRD:-$OUT/initrd.cpio}
if [ "$MODE" = run ]; then
	SCRIPT=${2:?usage: qemu.sh run SCRIPT}
	[ -f "$SCRIPT" ] || die "no such script: $SCRIPT"
	x=$(mktemp -d)
	mkdir -p "$x/run"; cp "$SCRIPT" "$x/run/script.sh"
	(cd "$x" && find . | cpio -o -H newc --quiet -R 0:0) > "$OUT/run-extra.cpio"
	rm -rf "$x"
	# The kernel unpacks concatenated cpio archives one after the other.
	cat "$OUT/initrd.cpio" "$OUT/run-extra.cpio" > "$OUT/initrd-run.cpio"
	INITRD=$OUT/initrd-run.cpio
fi

# tsc=reliable: under TCG the clocksource watchdog can judge the emulated TSC
# unstable and fall back to jiffies (4 ms clock resolution); the guest has no
# ACPI, hence no HPET or ACPI PM timer to fall back to instead.
APPEND="console=ttyS0,115200 reboot=t panic=-1 oops=panic loglevel=6 tsc=reliable union.mode=$MODE"
if grep -q '^flavour=debug' "$KINFO" 2>/dev/null; then
	APPEND="$APPEND panic_on_warn=1"
	# Under TCG on a busy host a vCPU can go unscheduled for tens of
	# seconds.  RCU's stall checks (and the gp-start check, which WARNs)
	# and the hung-task detector measure host time, not guest work: scale
	# them so that only a real kernel problem fails a run.  300 s is RCU's
	# maximum; a real stall still shows within a test's 900 s limit.
	APPEND="$APPEND rcupdate.rcu_cpu_stall_timeout=300"
	APPEND="$APPEND rcupdate.rcu_exp_cpu_stall_timeout=300000"
	APPEND="$APPEND rcupdate.rcu_cpu_stall_suppress_at_boot=1"
	APPEND="$APPEND sysctl.kernel.hung_task_timeout_secs=600"
fi
APPEND="$APPEND ${UNION_APPEND:-}"
# A union root (README "Union root"): UNION_ROOT_IMG, the read-only system
# image (scripts/build-union-root.sh), is the fourth disk, /dev/vdd.
[ -z "${UNION_ROOT_IMG:-}" ] || APPEND="$APPEND union.root=/dev/vdd"

# q35: its ACPI tables route PCI interrupts with a static _PRT package.
# The default i440fx machine computes _PRT in an AML While loop, which
# the interpreter, slow under TCG with KASAN and lockdep and slower on a
# busy host, aborts with AE_AML_LOOP_TIMEOUT after 30 s: the guest then
# boots a minute late and its virtio disks run without interrupts.
QEMU=(qemu-system-x86_64 -machine "${QEMU_MACHINE:-q35}" -accel "$ACCEL" -cpu max -smp "$SMP" -m "$MEM"
	-no-reboot -display none -nodefaults
	-kernel "$KERNEL" -initrd "$INITRD" -append "$APPEND")
for d in ext4 xfs btrfs; do
	QEMU+=(-drive "file=$D/$d.img,if=virtio,format=raw,cache=unsafe")
done
if [ -n "${UNION_ROOT_IMG:-}" ]; then
	[ -f "$UNION_ROOT_IMG" ] || die "no union root image $UNION_ROOT_IMG"
	QEMU+=(-drive "file=$UNION_ROOT_IMG,if=virtio,format=raw,readonly=on")
fi

msg "$(grep -h '^source=' "$KINFO" | cut -d= -f2-) [$(grep -h '^flavour=' "$KINFO" | cut -d= -f2)]"

if [ "$MODE" = vm ]; then
	QEMU+=(-chardev "stdio,id=con,mux=on,signal=off,logfile=$CONSOLE"
	       -serial chardev:con -mon chardev=con,mode=readline
	       -serial "file:$TTYS1")
	msg "booting the guest; exit the shell (or Ctrl-A x) to power it off"
	exec "${QEMU[@]}"
fi

QEMU+=(-serial "file:$CONSOLE" -serial "file:$TTYS1")
start=$(date +%s)
touch "$TTYS1"
rc=0
timeout --kill-after=10 "$TIMEOUT" "${QEMU[@]}" </dev/null &
qpid=$!
if [ "${UNION_STREAM:-1}" = 1 ]; then
	# Show the guest's test output as it comes; tail ends with QEMU.
	tail -n +1 -F --pid=$qpid "$TTYS1" 2>/dev/null | tr -d '\r' |
		grep --line-buffered -v '^@@' &
fi
wait $qpid || rc=$?
wait
secs=$(( $(date +%s) - start ))
echo "qemu_rc=$rc seconds=$secs timeout=$TIMEOUT" > "$OUT/$TAG-qemu.txt"
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	echo "GUEST TIMEOUT: no poweroff within ${TIMEOUT}s" >&2
fi
msg "guest ran ${secs}s (qemu exit $rc)"
exit 0
