#!/usr/bin/env bash
# `make bench` after the build: boot out/bzImage (the bench flavour, built
# by pipeline.sh) with union.mode=bench, then turn the guest's RESULT lines
# into
#   - a table on stdout (medians, union/plain and union/overlay ratios,
#     spread),
#   - bench/results/<date>_<kernel>.csv with header lines (kernel, date,
#     cache treatment, VM),
#   - bench/results/<date>_<kernel>.png, a chart of the ratios (gnuplot),
#   - the table in bench/README.md (between the results markers).
#
#   bench.sh            boot and report
#   bench.sh LOG        report an earlier guest log (out/bench-ttyS1.log)
#
# Guest knobs: BENCH_FS (tmpfs,ext4,xfs,btrfs), BENCH_ONLY (programs),
# BENCH_BIG (file systems where readdir lists 100k entries; all four),
# BENCH_REPS, BENCH_TINY=1 (smoke sizes; results go to out/bench-results);
# BENCH_TAR_PATHS (kernel tree paths packed for the macro workload;
# arch/x86); BENCH_RESULTS (where results go).  See bench/README.md.
. "$(dirname "$0")/lib.sh"

need_pkgs gnuplot-nox
RESULTS=${BENCH_RESULTS:-$REPO/bench/results}
# a tiny run checks the plumbing: its results stay in out/
[ "${BENCH_TINY:-}" = 1 ] && RESULTS=${BENCH_RESULTS:-$OUT/bench-results}
LOG=${1:-}

# The macro workload's tarball: part of the kernel tree at "base", shipped
# as an extra initramfs archive, so `make check` boots do not carry it.
bench_initrd() {
	local d=$OUT/bench-data paths=${BENCH_TAR_PATHS:-arch/x86}
	local tar=$d/bench/data/tree.tar stamp=$d/paths
	if [ ! -f "$tar" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$paths" ]; then
		rm -rf "$d"; mkdir -p "$d/bench/data"
		# shellcheck disable=SC2086
		if git -C "$TREE" archive --format=tar -o "$tar" base -- $paths; then
			echo "$paths" > "$stamp"
		else
			warn "no tarball from $TREE (base: $paths): the guest generates a tree"
			rm -f "$tar"
		fi
	fi
	(cd "$d" && find . ! -name paths | LC_ALL=C sort |
		cpio -o -H newc --quiet -R 0:0) > "$OUT/bench-data.cpio"
	cat "$OUT/initrd.cpio" "$OUT/bench-data.cpio" > "$OUT/initrd-bench.cpio"
}

run_guest() {
	local append=""
	[ -n "${BENCH_FS:-}" ] && append+=" union.bench_fs=$BENCH_FS"
	[ -n "${BENCH_ONLY:-}" ] && append+=" union.bench_only=$BENCH_ONLY"
	[ -n "${BENCH_BIG:-}" ] && append+=" union.bench_big=$BENCH_BIG"
	[ -n "${BENCH_REPS:-}" ] && append+=" union.bench_reps=$BENCH_REPS"
	[ "${BENCH_TINY:-}" = 1 ] && append+=" union.bench_tiny=1"
	grep -q '^flavour=bench' "$OUT/kernel.txt" 2>/dev/null ||
		warn "out/bzImage is not the bench flavour: timings include debugging"
	bench_initrd
	msg "benchmarks in the guest (progress below; full output in out/bench-ttyS1.log)"
	rm -f "$OUT/bench-ttyS1.log"
	UNION_INITRD=$OUT/initrd-bench.cpio UNION_LOG_TAG=bench UNION_STREAM=0 \
		UNION_VM_TIMEOUT=${UNION_VM_TIMEOUT:-1800} UNION_APPEND="${UNION_APPEND:-}$append" \
		"$REPO/scripts/qemu.sh" bench &
	local qpid=$!
	# progress: one line per program and file system, until qemu.sh ends
	tail -n +1 -F --pid=$qpid "$OUT/bench-ttyS1.log" 2>/dev/null |
		awk '{ sub(/\r$/, "") }
		     /^@@BEGIN /{ printf "  %-8s %-6s ", $2, $3; fflush() }
		     /^@@END /{ printf "%5ss%s\n", $5, $4 == 0 ? "" : "  FAILED (status " $4 ")"; fflush() }' ||
		true	# tail fails for the log that qemu.sh made anew
	wait $qpid
	LOG=$OUT/bench-ttyS1.log
}

[ -n "$LOG" ] || run_guest
[ -f "$LOG" ] || die "no guest log $LOG"
log_dir=$(dirname "$LOG")
console=$log_dir/bench-console.log
clean=$(mktemp); trap 'rm -f "$clean"' EXIT
tr -d '\r' < "$LOG" > "$clean"

release=$(sed -n 's/^@@KERNEL \([^ ]*\).*/\1/p' "$clean" | head -1)
[ -n "$release" ] || release=$(sed -n 's/^release=//p' "$OUT/kernel.txt" 2>/dev/null)
[ -n "$release" ] || release=unknown
vm=$(sed -n 's/^@@VM //p' "$clean" | head -1)
stamp=$(date -u +%Y-%m-%dT%H%MZ)
mkdir -p "$RESULTS"
name=${stamp}_linux-${release}
csv=$RESULTS/$name.csv
png=$RESULTS/$name.png

problems=()
grep -q '^@@DONE' "$clean" || problems+=("the guest did not finish (timeout or crash: see $console)")
while read -r _ p fs rc _; do
	[ "$rc" = 0 ] || problems+=("bench_$p on $fs exited with status $rc")
done < <(grep '^@@END ' "$clean")
grep -q '^@@ERROR' "$clean" && problems+=("$(grep -m1 '^@@ERROR' "$clean")")
if [ -f "$console" ] && grep -qE "$(cat "$REPO/scripts/splats.re")" "$console"; then
	problems+=("kernel splat in $console")
fi

# --- one row per workload, fs and cache; columns per setup ----------------
# wide.tsv: workload fs cache unit ops reps  then for plain, union,
# overlay: median min max note  ("-" where absent)
wide=$(mktemp); trap 'rm -f "$clean" "$wide"' EXIT
awk '
/^RESULT / {
	delete f; note = ""
	for (i = 2; i <= NF; i++) {
		name = $i; sub(/=.*/, "", name); v = $i; sub(/^[^=]*=/, "", v)
		if (name == "note") { note = v; for (j = i + 1; j <= NF; j++) note = note "_" $j; break }
		f[name] = v
	}
	key = f["workload"] SUBSEP f["fs"] SUBSEP f["cache"]
	if (!(key in seen)) { seen[key] = 1; order[++n] = key }
	unit[key] = f["unit"]
	if (f["median"] != "n/a") { ops[key] = f["ops"]; reps[key] = f["reps"] }
	s = f["setup"]
	med[key, s] = f["median"]; mn[key, s] = f["min"] == "" ? "-" : f["min"]
	mx[key, s] = f["max"] == "" ? "-" : f["max"]; nt[key, s] = note == "" ? "-" : note
}
END {
	for (i = 1; i <= n; i++) {
		key = order[i]; split(key, k, SUBSEP)
		line = k[1] "\t" k[2] "\t" k[3] "\t" unit[key] "\t" (key in ops ? ops[key] : "-") "\t" (key in reps ? reps[key] : "-")
		for (j = 1; j <= 3; j++) {
			s = j == 1 ? "plain" : j == 2 ? "union" : "overlay"
			if ((key, s) in med)
				line = line "\t" med[key, s] "\t" mn[key, s] "\t" mx[key, s] "\t" nt[key, s]
			else
				line = line "\t-\t-\t-\t-"
		}
		print line
	}
}' "$clean" > "$wide"
[ -s "$wide" ] || problems+=("no RESULT lines in $LOG")

cache_note="sync before every timed run; warm: one untimed warm-up run, then the timed runs, caches as the warm-up left them; cold: echo 3 > /proc/sys/vm/drop_caches before every timed run (disk file systems only: tmpfs has nothing to drop)"
vm_note="QEMU $(qemu-system-x86_64 --version 2>/dev/null | head -1 | sed 's/.*version \([^ ]*\).*/\1/') accel=${QEMU_ACCEL:-tcg,thread=multi} -smp ${UNION_VM_SMP:-2} -m ${UNION_VM_MEM:-2G}; guest: ${vm:-unknown}; host: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
source_note=$(sed -n 's/^source=//p' "$OUT/kernel.txt" 2>/dev/null)
flavour_note=$(sed -n 's/^flavour=//p' "$OUT/kernel.txt" 2>/dev/null)

# --- CSV --------------------------------------------------------------------
{
	echo "# union mounts benchmark: union vs plain file system vs overlayfs"
	echo "# kernel: $release ($flavour_note flavour; $source_note)"
	echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "# cache: $cache_note"
	echo "# vm: $vm_note"
	echo "# values are medians over reps runs; *_min/*_max are the extremes; ratios are of medians"
	echo "workload,fs,cache,unit,ops,reps,plain,union,overlay,union_plain,union_overlay,plain_min,plain_max,union_min,union_max,overlay_min,overlay_max,note"
	awk -F'\t' -v OFS=, '
	function ratio(a, b) { return (a ~ /^-?[0-9.e+-]+$/ && b ~ /^-?[0-9.e+-]+$/ && b + 0 > 0 && a + 0 >= 0) ? sprintf("%.3f", a / b) : "" }
	function num(x) { return x == "-" ? "" : x }
	{
		note = ""
		if ($10 != "-") note = note "plain:" $10 " "
		if ($14 != "-") note = note "union:" $14 " "
		if ($18 != "-") note = note "overlay:" $18 " "
		sub(/ $/, "", note); gsub(/,/, ";", note)
		print $1, $2, $3, $4, num($5), num($6), num($7), num($11), num($15),
		      ratio($11, $7), ratio($11, $15), num($8), num($9), num($12),
		      num($13), num($16), num($17), note
	}' "$wide"
} > "$csv"

# --- table --------------------------------------------------------------------
table() {
	awk -F'\t' '
	function isnum(x) { return x ~ /^-?[0-9.e+-]+$/ }
	function fmt(x) {
		if (x == "n/a" || !isnum(x)) return x
		x += 0
		if (x >= 1000 || x <= -1000) return sprintf("%.0f", x)
		if (x >= 100 || x <= -100) return sprintf("%.1f", x)
		if (x >= 10 || x <= -10) return sprintf("%.2f", x)
		return sprintf("%.3f", x)
	}
	function ratio(a, b) { return (isnum(a) && isnum(b) && b + 0 > 0 && a + 0 >= 0) ? sprintf("%.2f", a / b) : "-" }
	function spread(m, lo, hi) {
		if (!isnum(m) || !isnum(lo) || m + 0 == 0) return "-"
		return sprintf("%.0f", 100 * (hi - lo) / (m < 0 ? -m : m))
	}
	BEGIN {
		printf "%-20s %-5s %-4s %-6s %9s %9s %9s %6s %6s %-11s %s\n", "workload", "fs", "cache", "unit", "plain", "union", "overlay", "u/p", "u/o", "spread%", "notes"
	}
	{
		note = ""
		if ($10 != "-") note = note "plain:" $10 " "
		if ($14 != "-") note = note "union:" $14 " "
		if ($18 != "-") note = note "overlay:" $18 " "
		printf "%-20s %-5s %-4s %-6s %9s %9s %9s %6s %6s %-11s %s\n", $1, $2, $3, $4,
		       fmt($7), fmt($11), fmt($15), ratio($11, $7), ratio($11, $15),
		       spread($7, $8, $9) "/" spread($11, $12, $13) "/" spread($15, $16, $17), note
	}' "$wide"
}

report_txt=$RESULTS/$name.txt
{
	echo "kernel $release ($flavour_note), $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "vm: $vm_note"
	echo "cache: $cache_note"
	echo "spread% = (max - min) / median of the repetitions, for plain/union/overlay;"
	echo "u/p = union / plain, u/o = union / overlay (medians; below 1 the union is faster)"
	echo
	table
} > "$report_txt"
cat "$report_txt"

# --- chart: one panel per file system, union/plain and union/overlay -------
plot() {
	local fss fs dat n=0 script
	fss=$(cut -f2 "$wide" | awk '!s[$0]++')
	script=$(mktemp)
	{
		echo "set terminal pngcairo size 1600,$(( 380 * $(echo "$fss" | wc -w) + 60 )) font 'sans,9' noenhanced"
		echo "set output '$png'"
		echo "set multiplot layout $(echo "$fss" | wc -w),1 title 'union mounts, kernel $release: union/plain and union/overlay (median ratios; log scale; 1 = same cost)'"
		echo "set style data histogram; set style histogram cluster gap 1"
		echo "set style fill solid 0.8 border -1; set boxwidth 0.9"
		echo "set logscale y 2; set yrange [1.0/64:64]; set grid ytics; set bmargin 8; set rmargin 8"
		echo "set xtics rotate by -45 scale 0; set datafile missing '-'"
		echo "set key top left; set datafile separator '\t'"
		echo "set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead lw 2 lc rgb 'black' front"
	} > "$script"
	for fs in $fss; do
		dat=$(mktemp -p "$OUT" bench-plot-XXXX.tsv)
		awk -F'\t' -v fs="$fs" '
		function isnum(x) { return x ~ /^-?[0-9.e+-]+$/ }
		function r(a, b) { return (isnum(a) && isnum(b) && a > 0 && b > 0) ? a / b : "-" }
		$2 == fs && (r($11, $7) != "-" || r($11, $15) != "-") {
			print $1 ($3 == "cold" ? " (cold)" : "") "\t" r($11, $7) "\t" r($11, $15)
		}' "$wide" > "$dat"
		echo "set title '$fs'; plot '$dat' using 2:xtic(1) title 'union/plain' lc rgb '#3060c0', '' using 3 title 'union/overlay' lc rgb '#e08020'" >> "$script"
		n=$((n + 1))
	done
	echo "unset multiplot" >> "$script"
	if gnuplot "$script" 2>"$OUT/bench-gnuplot.err"; then
		msg "chart: ${png#"$REPO"/}"
	else
		sed -i 's/pngcairo/png/' "$script"
		gnuplot "$script" 2>>"$OUT/bench-gnuplot.err" && msg "chart: ${png#"$REPO"/}" ||
			warn "gnuplot failed: $OUT/bench-gnuplot.err"
	fi
	rm -f "$script" "$OUT"/bench-plot-*.tsv
}
[ -s "$wide" ] && plot
msg "results: ${csv#"$REPO"/}"

# --- the latest table in bench/README.md -------------------------------------
readme=$REPO/bench/README.md
if [ "$RESULTS" = "$REPO/bench/results" ] && [ -s "$wide" ] &&
   grep -q '^<!-- bench-results-begin -->' "$readme" 2>/dev/null; then
	new=$(mktemp)
	awk -v f="$report_txt" -v csv="results/$name.csv" -v png="results/$name.png" '
	/^<!-- bench-results-begin -->/ {
		print; print ""
		print "Latest run: [" csv "](" csv "), chart [" png "](" png ")."
		print ""; print "```"
		while ((getline l < f) > 0) print l
		print "```"; print ""; skip = 1; next
	}
	/^<!-- bench-results-end -->/ { skip = 0 }
	!skip { print }' "$readme" > "$new" && cat "$new" > "$readme"
	rm -f "$new"
fi

if [ ${#problems[@]} -gt 0 ]; then
	for p in "${problems[@]}"; do echo "FAIL: $p"; done
	exit 1
fi
