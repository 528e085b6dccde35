#!/bin/sh
# The benchmark driver inside the guest (installed as /bench/run.sh; run
# by guest/init for union.mode=bench).  Runs every benchmark program on
# every scratch file system, framed for scripts/bench.sh:
#   @@VM key=value...          what the guest is
#   @@BEGIN prog fs            a program starts on one file system
#   RESULT ...                 its results (see bench/bench.h)
#   @@END prog fs status secs  it ended
# Kernel command line knobs (scripts/bench.sh passes them through):
#   union.bench_fs=tmpfs,ext4  file systems (default all four)
#   union.bench_only=a,b       programs (default all: lookup readdir
#                              create untar slab copyup)
#   union.bench_big=tmpfs,ext4 where readdir also lists 100k entries
#                              (default all four)
#   union.bench_reps=N         repetitions instead of each program's own
#   union.bench_tiny=1         smoke-test sizes
B=/bench
FS="tmpfs ext4 xfs btrfs"
ONLY="lookup readdir create untar slab copyup"
BIG="tmpfs ext4 xfs btrfs"
REPS=
TINY=
for a in $(cat /proc/cmdline); do
	case $a in
	union.bench_fs=*) FS=$(echo "${a#*=}" | tr , ' ') ;;
	union.bench_only=*) ONLY=$(echo "${a#*=}" | tr , ' ') ;;
	union.bench_big=*) BIG=$(echo "${a#*=}" | tr , ' ') ;;
	union.bench_reps=*) REPS="--reps ${a#*=}" ;;
	union.bench_tiny=1) TINY=--tiny ;;
	esac
done

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1 | tr ' ' '_')
mem=$(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo)
echo "@@VM nproc=$(nproc) mem_kb=$mem cpu=$cpu tar=$( [ -f $B/data/tree.tar ] && echo "$(wc -c < $B/data/tree.tar)B" || echo none)"

for p in $ONLY; do
	for fs in $FS; do
		sizes=
		if [ "$p" = readdir ] && [ -z "$TINY" ]; then
			sizes="--sizes 1000,10000"
			case " $BIG " in *" $fs "*) sizes="--sizes 1000,10000,100000" ;; esac
		fi
		echo "@@BEGIN $p $fs"
		start=$(date +%s)
		cd /tmp
		# shellcheck disable=SC2086
		"$B/bench_$p" --fs "$fs" $sizes $REPS $TINY 2>&1
		rc=$?
		echo "@@END $p $fs $rc $(( $(date +%s) - start ))"
	done
done
