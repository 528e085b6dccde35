#!/bin/sh
# The stress driver inside the guest (installed as /stress/run.sh): bounded
# load on a writable union over a populated read-only lower layer, on each
# scratch file system, printed as TAP.
#
#   run.sh SECONDS [FS...]      FS: tmpfs ext4 xfs btrfs (default all four)
#
# SECONDS is the whole budget, shared by the file systems.  For each one,
# in $UNION_SCRATCH/FS/stress:
#   lower/  populated by union_stress_tool (about 600 objects: data, modes,
#           owners, xattrs, symlinks, FIFOs) and fingerprinted (manifest);
#   upper/  the empty top layer;
#   mnt/    a bind mount of lower/ with upper/ on it as a writable union
#           layer (union add -c), where all the load runs.
# Phases (shares of the budget): stress-ng file system stressors, each with
# one instance, --verify, temp path mnt/work (a directory of the lower
# layer) and --fstat-dir mnt/tree (lower names) (40%); four union_fsx runs
# at once on files of the lower layer, two with mmap (20%); storm, workers
# racing on lower names while listers read and a changer edits lower/live
# directly (20%); the same storm started in the union with a second top
# layer added over it, then both layers lazily unmounted while the workers
# go on in them (10%); then the union is mounted again, its view checked
# against its layers (verify), unmounted (which must not be busy), the
# lower layer's fingerprint compared (live/, changed on purpose, left out)
# and the kernel log searched for splats.
#
# A starved host (other guests, stress-ng on the host) slows the guest
# down many times; the load is judged by the work done, not by the time:
# the slice's stress-ng stressors each run a number of bogo operations
# (SLICE below) with a time limit only as a bound (60 s); a stressor that
# did no operation in the shared run (its time share or that bound) runs
# again alone until it completes one (--STRESSOR-ops 1, at most 120 s), and
# fails only then; union_fsx runs past its copy-up however long that takes;
# each storm process does at least one round of operations, and the
# detached storm waits for its workers to be in the union before the next
# step and goes on until it has worked in the unmounted layers.  What the
# load finds stays strict: stress-ng's exit status and --verify, fsx's
# model, the storm's errno list (EROFS only after the lazy unmount),
# verify, the fingerprint, the unmount and the kernel log.
#
# Knobs (environment): STRESS_SEED (default 1; seeds of fsx and storm
# derive from it), STRESS_NG_SET (slice, short or full: the list of
# stressors; default slice below 60 s per file system, full from 300 s,
# short between), STRESS_NG_LIST (stressors, overrides the set),
# STRESS_KEEP=1 (leave files), STRESS_DETACH=0 (leave out the storm with
# a second layer added and both layers lazily unmounted), STRESS_LOWER_RO=1 (the bind mount of lower/ that the union
# covers is made read-only: a change of the lower layer then cannot come
# through it or through a view cloned from it).
#
# The slice set (make check) has only stressors whose bogo operations take
# well under a second in the debug guest under TCG: link, symlink, mmap,
# filename and xattr need many seconds per operation there, and a stressor
# that finishes no operation in its time is a failure.
D=/stress
PATH=$D:$PATH
total=${1:-150}
shift
FSS=${*:-tmpfs ext4 xfs btrfs}
S=${UNION_SCRATCH:-/mnt/scratch}
SEED=${STRESS_SEED:-1}
nfs=$(echo $FSS | wc -w)
per=$((total / nfs))
[ $per -ge 12 ] || per=12
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
lap() { now=$(date +%s); echo "# $fs: $1 took $((now - lap0))s"; lap0=$now; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
check() {	# description command...: one TAP line for a command's status
	d=$1; shift
	if "$@" > /tmp/stress.out 2>&1; then
		ok "$d"
		sed 's/^/# /' /tmp/stress.out | tail -5
	else
		notok "$d"
		sed 's/^/# /' /tmp/stress.out | tail -60
	fi
}

# the slice: stressor:bogo-ops, about 4 s of an idle TCG guest on btrfs
SLICE_OPS="dir:40 dirdeep:16 rename:8 dentry:40 hdd:60 lockf:400 io:2 utime:20 chown:6 open:30 chmod:2 fstat:4 file-ioctl:2"
SLICE=$(echo "$SLICE_OPS" | sed 's/:[0-9]*//g')
SHORT="dir dirdeep rename link symlink filename dentry hdd fallocate xattr file-ioctl lockf mmap io utime chown open chmod fstat"
# (not inode-flags: stress-ng 0.15 counted no bogo op of it in 40 s on a
# plain tmpfs either, session 16; chattr drives FS_IOC_SETFLAGS instead)
FULL="$SHORT getdent copy-file fiemap readahead seek sync-file touch access flock fpunch fcntl iomix lease dnotify inotify chattr mknod sendfile splice"
set_=${STRESS_NG_SET:-}
if [ -z "$set_" ]; then
	if [ $per -ge 300 ]; then set_=full
	elif [ $per -ge 60 ]; then set_=short
	else set_=slice
	fi
fi
NG_OPS=""
case $set_ in
full) STRESSORS=$FULL ;;
short) STRESSORS=$SHORT ;;
*) set_=slice STRESSORS=$SLICE NG_OPS=$SLICE_OPS ;;
esac
[ -z "${STRESS_NG_LIST:-}" ] || { set_="own list" STRESSORS=$STRESS_NG_LIST NG_OPS=""; }

echo "# stress: ${total}s over: $FSS (${per}s each), seed $SEED, stress-ng set $set_"
echo "# kernel $(uname -r), $(nproc) CPUs"

ng() {	# log yaml timeout args...: stress-ng with the driver's options
	l=$1 y=$2 to=$3; shift 3
	rm -f "$y"
	# -v: stress-ng says why a stressor did not succeed (a signal that
	# ended it, an exit status) only in its debug lines
	timeout -s KILL $((to + 120)) stress-ng -v "$@" --timeout "$to" --verify \
		--temp-path "$mnt/work" --fstat-dir "$mnt/tree" \
		--hdd-bytes 4M --fallocate-bytes 4M --mmap-bytes 2M \
		--iomix-bytes 4M --seek-size 4M --readahead-bytes 4M \
		--sync-file-bytes 4M --copy-file-bytes 128M --dirdeep-inodes 2000 \
		--metrics-brief --yaml "$y" > "$l" 2>&1
}

# yaml log stressor: its bogo ops from stress-ng's YAML, else from its
# --metrics-brief line in the log (in session 16's run of the full set the
# YAML ended after xattr, the 10th stressor and the one with no bogo op:
# the 26 after it were counted idle and each ran again alone), or nothing
ng_ops() {
	o=$(awk -v s="$3" '$1 == "-" && $2 == "stressor:" { cur = $3 }
		cur == s && $1 == "bogo-ops:" { print $2; exit }' "$1" 2>/dev/null)
	[ -n "$o" ] || o=$(sed -n 's/^.*metrc: \[[0-9]*\] *//p' "$2" 2>/dev/null |
		awk -v s="$3" '$1 == s && $2 ~ /^[0-9]+$/ { print $2; exit }')
	echo "$o"
}

run_stress_ng() {	# fs mnt secs
	fs=$1 mnt=$2 t=$3
	if ! command -v stress-ng > /dev/null; then
		skip "stress-ng on $fs" "stress-ng is not in the initramfs"
		return
	fi
	args=""
	for s in $STRESSORS; do args="$args --$s 1"; done
	# the slice counts work: N bogo ops each, the time only a bound
	# (stress-ng 0.15 takes --S-ops for the stressor named just before)
	how="${t}s"
	if [ -n "$NG_OPS" ]; then
		args=""
		for so in $NG_OPS; do args="$args --${so%%:*} 1 --${so%%:*}-ops ${so#*:}"; done
		t=60 how="bogo ops, at most 60s"
	fi
	y=/tmp/stress-ng-$fs.yaml
	ng_start=$(date +%s)
	# shellcheck disable=SC2086
	ng /tmp/stress-ng.log "$y" "$t" $args
	rc=$?
	echo "# stress-ng on $fs ($how): exit $rc after $(( $(date +%s) - ng_start ))s"
	grep -iE 'fail|error|skipp|not implemented|not supported|warn' /tmp/stress-ng.log |
		head -20 | sed 's/^/# /'
	# per stressor: bogo ops, real, usr and sys seconds
	grep 'metrc:' /tmp/stress-ng.log | sed 's/^.*metrc: \[[0-9]*\] *//' |
		awk '$2 ~ /^[0-9]+$/ {
				printf "%s%s %s %s %s %s", (k % 5 ? ", " : (k ? "\n# " : "# ")), $1, $2, $3, $4, $5
				k++
			}
			END { if (k) print "" }' |
		sed '1s/^# /# stress-ng per stressor (ops real usr sys): /'
	case $rc in
	0) ok "stress-ng on $fs: exit 0" ;;
	*)	notok "stress-ng on $fs: exit $rc"
		# why: a stressor that failed, was killed or ran out of
		# resources (debug lines of -v), and the summary
		grep -v 'metrc:' /tmp/stress-ng.log |
			grep -iE 'terminated|killed|exit status|signal|fail|error|untrustworth|abort|resources|unsuccessful' |
			tail -40 | sed 's/^/# /' ;;
	esac
	# every stressor must have done work: bogo ops in the shared run, or
	# (starved there) at least one when it runs alone
	total_ops=0
	for s in $STRESSORS; do
		ops=$(ng_ops "$y" /tmp/stress-ng.log "$s")
		want=""
		for so in $NG_OPS; do [ "${so%%:*}" = "$s" ] && want=" of ${so#*:}"; done
		why=$(grep -E "\] $s: .*(skipp|not supported|not implemented)" /tmp/stress-ng.log | head -1 | sed 's/.*\] //')
		if [ -n "$ops" ] && [ "$ops" -gt 0 ]; then
			ok "stress-ng --$s on $fs: $ops bogo ops$want"
			total_ops=$((total_ops + ops))
		elif [ -n "$why" ]; then
			skip "stress-ng --$s on $fs" "$why"
		else
			echo "# stress-ng --$s on $fs: no bogo op in the shared run (${ops:-no metrics}); again alone, until one"
			grep -E "\] $s " /tmp/stress-ng.log | sed 's/^/# /'
			x0=$(date +%s)
			ng /tmp/stress-ng-x.log /tmp/stress-ng-x.yaml 120 --"$s" 1 --"$s"-ops 1
			xrc=$?
			xops=$(ng_ops /tmp/stress-ng-x.yaml /tmp/stress-ng-x.log "$s")
			xt=$(( $(date +%s) - x0 ))
			if [ $xrc = 0 ] && [ -n "$xops" ] && [ "$xops" -gt 0 ]; then
				ok "stress-ng --$s on $fs: 0 bogo ops in the shared run, $xops alone (${xt}s)"
				total_ops=$((total_ops + xops))
			else
				notok "stress-ng --$s on $fs: no bogo ops, alone either (exit $xrc after ${xt}s, ${xops:-no metrics})"
				tail -20 /tmp/stress-ng-x.log | sed 's/^/# /'
			fi
		fi
	done
	echo "# stress-ng on $fs: $total_ops bogo ops in all"
}

run_fsx() {	# fs mnt lower secs
	fs=$1 mnt=$2 lower=$3 t=$4
	pids=""
	for i in 0 1 2 3; do
		m=""; [ $((i % 2)) = 1 ] && m=-m
		union_fsx -s $((SEED * 100 + i)) -t "$t" $m -l 131072 \
			-L "$lower/fsx/f$i" "$mnt/fsx/f$i" > /tmp/fsx-$i.log 2>&1 &
		pids="$pids $!"
	done
	i=0
	for p in $pids; do
		if wait "$p"; then
			ok "fsx f$i on $fs$( [ $((i % 2)) = 1 ] && echo ' (mmap)'): $(tail -1 /tmp/fsx-$i.log | sed 's/^fsx: ok //')"
		else
			notok "fsx f$i on $fs (file starts in the lower layer)"
			tail -80 /tmp/fsx-$i.log | sed 's/^/# /'
		fi
		i=$((i + 1))
	done
}

wait_file() {	# file seconds: wait for a file to appear
	w=0
	while [ ! -e "$1" ] && [ $w -lt "$2" ]; do sleep 1; w=$((w + 1)); done
	[ -e "$1" ]
}

# the storm with a second top layer stacked on and both layers taken off
# lazily while the workers go on in them (relative paths from their cwd).
# Each step waits for the workers of the step before to be in the union
# (the -r file), so that a slow start cannot put them below it; the -d
# file, made just before the lazy unmounts, lets EROFS in from then on.
run_detach() {	# fs mnt upper lower secs
	fs=$1 mnt=$2 up=$3 lower=$4 t=$5
	half=$((t / 2)); [ $half -ge 2 ] || half=2
	flag=/tmp/det-$fs.detached
	rm -f "$flag" "$flag".trace.* /tmp/det1.ready /tmp/det2.ready
	(cd "$mnt" && exec union_stress_tool storm -r /tmp/det1.ready -d "$flag" \
		. $((half * 2)) 2 $((SEED + 7))) > /tmp/det1.log 2>&1 &
	p1=$!
	if ! wait_file /tmp/det1.ready 120; then
		notok "storm workers on $fs in the union within 120 s"
		kill -9 $p1; wait $p1
		sed 's/^/# /' /tmp/det1.log
		return
	fi
	extra=$(dirname "$up")/extra
	rm -rf "$extra"; mkdir -p "$extra"
	if ! union add -c "$extra" "$mnt" > /tmp/det-add.log 2>&1; then
		notok "union add of a second top layer on $fs while workers run"
		sed 's/^/# /' /tmp/det-add.log
	else
		ok "union add of a second top layer on $fs while workers run"
	fi
	(cd "$mnt" && exec union_stress_tool storm -r /tmp/det2.ready -d "$flag" \
		. "$half" 2 $((SEED + 8))) > /tmp/det2.log 2>&1 &
	p2=$!
	if ! wait_file /tmp/det2.ready 120; then
		notok "storm workers on $fs in the two-layer union within 120 s"
		kill -9 $p2
	fi
	sleep $((half / 2 + 1))
	# the workers' cwd is in these layers: lazily, both of them
	touch "$flag"
	echo "# $fs: lazy unmounts at $(date +%s)"
	if umount -l "$mnt" && umount -l "$mnt"; then
		ok "lazy unmount of both layers on $fs while workers are inside"
	else
		notok "lazy unmount of both layers on $fs while workers are inside"
	fi
	r1=0; r2=0
	wait $p1 || r1=$?
	wait $p2 || r2=$?
	if [ $r1 = 0 ] && [ $r2 = 0 ]; then
		ok "storm in unmounted layers on $fs: $(grep -h '^storm: seed\|^storm: after' /tmp/det1.log /tmp/det2.log | sed 's/.*workers, //; s/^storm: //' | tr '\n' ' ')"
	else
		notok "storm in unmounted layers on $fs"
		sed 's/^/# /' /tmp/det1.log /tmp/det2.log | tail -20
	fi
	rm -rf "$extra"
	rm -f "$flag"
}

one_fs() {	# fs
	fs=$1
	base=$S/$fs/stress
	if ! grep -q " $S/$fs " /proc/mounts; then
		skip "stress on $fs" "no scratch file system at $S/$fs"
		return
	fi
	fs_start=$(date +%s)
	# the kernel log from here on is this file system's: a splat an
	# earlier test program left is that program's failure, not this one's
	mark="union_stress: load on $fs begins at $fs_start"
	echo "$mark" > /dev/kmsg
	lap0=$fs_start
	rm -rf "$base"
	mkdir -p "$base/upper" "$base/mnt"
	lower=$base/lower upper=$base/upper mnt=$base/mnt
	check "populate the lower layer on $fs" union_stress_tool populate "$lower" "$SEED" || true
	union_stress_tool manifest "$lower" live > /tmp/manifest-before
	echo "# lower layer: $(wc -l < /tmp/manifest-before) objects, $(du -sk "$lower" | cut -f1) KiB"
	if ! mount --bind "$lower" "$mnt" ||
	   { [ "${STRESS_LOWER_RO:-0}" = 1 ] && ! mount -o remount,bind,ro "$mnt"; } ||
	   ! union add -c "$upper" "$mnt" > /tmp/add.log 2>&1; then
		notok "writable union on $fs"
		sed 's/^/# /' /tmp/add.log
		return
	fi
	ok "writable union on $fs"
	union show "$mnt" 2>&1 | sed 's/^/# /'
	lap "populate, fingerprint, mount"

	t_ng=$((per * 40 / 100)); t_fsx=$((per * 20 / 100))
	t_storm=$((per * 20 / 100)); t_det=$((per * 10 / 100))
	[ $t_fsx -ge 3 ] || t_fsx=3
	[ $t_storm -ge 3 ] || t_storm=3
	[ $t_det -ge 4 ] || t_det=4
	[ $t_ng -ge 5 ] || t_ng=5

	run_stress_ng "$fs" "$mnt" "$t_ng"
	lap stress-ng
	run_fsx "$fs" "$mnt" "$lower" "$t_fsx"
	lap fsx
	check "storm on $fs: racing changes of lower names, listers, lower layer changed directly" \
		union_stress_tool storm "$mnt" "$t_storm" 3 "$SEED" "$lower/live"
	lap storm
	check "union view on $fs matches its layers after the load" \
		union_stress_tool verify "$mnt" "$upper" "$lower"
	lap verify
	if [ "${STRESS_DETACH:-1}" = 1 ]; then
		run_detach "$fs" "$mnt" "$upper" "$lower" "$t_det"
		lap "storm with add and lazy unmounts"
	else
		echo "# $fs: storm with add and lazy unmounts left out (STRESS_DETACH=0)"
		# what the lazy unmounts would have left: the bind mount of lower/
		umount "$mnt" || notok "unmount of the union layer on $fs"
	fi

	# mounted again: the layers as the detached workers left them; only
	# the bind mount of lower/ is left on mnt/
	if [ "$(grep -c " $mnt " /proc/mounts)" != 1 ]; then
		notok "only the bind mount of lower/ on $fs after the lazy unmounts"
		grep " $mnt " /proc/mounts | sed 's/^/# /'
	fi
	if union add -c "$upper" "$mnt" > /tmp/add.log 2>&1; then
		check "union view on $fs matches its layers after the detached workers" \
			union_stress_tool verify "$mnt" "$upper" "$lower"
		check "unmount of the union on $fs (not busy)" union remove "$mnt"
		umount "$mnt" || notok "unmount of the bind mount of lower/ on $fs"
	else
		notok "writable union on $fs, mounted again"
		sed 's/^/# /' /tmp/add.log
	fi
	lap "verify, unmount"
	union_stress_tool manifest "$lower" live > /tmp/manifest-after
	if cmp -s /tmp/manifest-before /tmp/manifest-after; then
		ok "lower layer on $fs unchanged ($(wc -l < /tmp/manifest-after) objects: contents, modes, owners, times, xattrs)"
	else
		notok "lower layer on $fs changed by the union"
		diff /tmp/manifest-before /tmp/manifest-after | head -30 | sed 's/^/# /'
		# what the detached storm's workers tried on those names
		for name in $(diff /tmp/manifest-before /tmp/manifest-after |
				sed -n 's/^+\([^+ ][^ ]*\) .*/\1/p' | head -10); do
			grep -hE  " \./${name}[ :]" /tmp/det-"$fs".detached.trace.* 2>/dev/null |
				head -10 | sed 's/^/# detached storm (time worker op names: result): /'
		done
	fi
	echo "# top layer on $fs: $(find "$upper" | wc -l) objects, $(du -sk "$upper" | cut -f1) KiB"
	dmesg | sed -n "/$mark/,\$p" > /tmp/dmesg-load
	if grep -qE -f $D/splats.re /tmp/dmesg-load; then
		notok "no kernel splat after the load on $fs"
		grep -E -f $D/splats.re /tmp/dmesg-load | head -20 | sed 's/^/# /'
		# the first report whole: a lockdep chain names both lock orders
		first=$(grep -nE -f $D/splats.re /tmp/dmesg-load | head -1 | cut -d: -f1)
		tail -n +"$first" /tmp/dmesg-load | head -90 | sed 's/^/# /'
	else
		ok "no kernel splat after the load on $fs"
	fi
	[ "${STRESS_KEEP:-0}" = 1 ] || rm -rf "$base"
	echo "# $fs: $(( $(date +%s) - fs_start ))s"
}

run_start=$(date +%s)
for fs in $FSS; do
	one_fs "$fs"
done
echo "# stress: $(( $(date +%s) - run_start ))s in all, $failed failed"
echo "1..$n"
[ $failed = 0 ]
