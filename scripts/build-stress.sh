#!/usr/bin/env bash
# The stress workload's part of the initramfs (called by build-userspace.sh
# after it packed out/initrd.cpio): appends one compressed cpio
# archive (the kernel unpacks concatenated archives in turn) holding
#   /stress/run.sh, /stress/splats.re     the driver (tests/guest/stress/)
#   /stress/union_fsx, union_stress_tool  its programs, static
#   /usr/bin/stress-ng + its shared libraries and ld.so (Debian's stress-ng
#                                         is dynamically linked)
# If stress-ng cannot be installed, the rest is still added and the guest
# reports its stressors as skipped.  See README.md, "Stress".
. "$(dirname "$0")/lib.sh"

need_pkgs lz4 cpio
CC=${CC:-gcc}
SRC=$REPO/tests/guest/stress
B=$OUT/stress-build
R=$OUT/stress-root
mkdir -p "$B"
rm -rf "$R"; mkdir -p "$R/stress" "$R/usr/bin"

for n in union_fsx union_stress_tool; do
	if [ ! -f "$B/$n" ] || [ "$SRC/$n.c" -nt "$B/$n" ]; then
		$CC -static -O2 -g0 -Wall -Wextra -Wno-unused-parameter \
			-Wno-format-truncation -D_GNU_SOURCE -o "$B/$n" "$SRC/$n.c"
	fi
	cp "$B/$n" "$R/stress/$n"
done
cp "$SRC/run.sh" "$R/stress/run.sh"
cp "$REPO/scripts/splats.re" "$R/stress/splats.re"

if need_pkgs stress-ng && [ -x /usr/bin/stress-ng ]; then
	cp /usr/bin/stress-ng "$R/usr/bin/stress-ng"
	# the libraries at the paths the dynamic linker looks in
	for l in $(ldd /usr/bin/stress-ng | awk '/=> \//{ print $3 } /^\t\/.*ld-linux/{ print $1 }'); do
		mkdir -p "$R$(dirname "$l")"
		cp -L "$l" "$R$l"
	done
else
	warn "stress-ng not available: the stress runs will skip it"
fi
chmod -R go-w "$R"
chmod 0755 "$R"/stress "$R"/stress/*.sh "$R"/stress/union_*
# compressed: STRESS_CPIO_COMPRESS=gzip (default) or lz4 (legacy format,
# the kernel's reader; CONFIG_RD_GZIP / CONFIG_RD_LZ4)
comp=${STRESS_CPIO_COMPRESS:-gzip}
case $comp in
gzip) zip=(gzip -1) ;;
lz4) zip=(lz4 -q -l -9) ;;
*) die "STRESS_CPIO_COMPRESS: gzip or lz4" ;;
esac
(cd "$R" && find . ! -name . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) |
	"${zip[@]}" > "$OUT/stress.cpio.z"
# zeros: at least 4, which end an lz4 stream for the kernel's reader, and
# up to a 512-byte boundary, since an archive appended after this one
# (qemu.sh run, bench) must start 4-byte aligned to be recognised
sz=$(stat -c %s "$OUT/stress.cpio.z")
head -c $(( 4 + (512 - (sz + 4) % 512) % 512 )) /dev/zero >> "$OUT/stress.cpio.z"
cat "$OUT/stress.cpio.z" >> "$OUT/initrd.cpio"
