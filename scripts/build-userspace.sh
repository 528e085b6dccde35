#!/usr/bin/env bash
# Build the statically linked guest programs and the initramfs.
#
# Test programs come from two places, each .c file one program:
#   $TREE/tools/testing/selftests/union/   the series' selftests
#   tests/guest/                           checks of the guest itself
# The benchmarks (bench/*.c, one program each, and bench/run-guest.sh)
# go to /bench in the guest.
# They build against the work tree's uapi headers (out/uapi-include) and
# its kselftest_harness.h.
. "$(dirname "$0")/lib.sh"

[ -d "$OUT/uapi-include/linux" ] || die "no uapi headers: build the kernel first"
need_pkgs busybox-static cpio
# mount(8), umount(8) and findmnt(8) that know union layers: util-linux
# with patches/util-linux/ (scripts/util-linux.sh; cached, rebuilt when the
# series changes)
"$REPO/scripts/util-linux.sh" build
CC=${CC:-gcc}
# -Wno-clobbered: kselftest_harness.h's TEST_F() keeps locals across its
# setjmp(), which gcc warns about in every test; the harness is upstream's.
CFLAGS=(-static -O2 -g0 -Wall -Wextra -Wno-unused-parameter -Wno-clobbered
	-D_GNU_SOURCE
	-I"$OUT/uapi-include" -I"$TREE/tools/testing/selftests"
	-I"$TREE/tools/testing/selftests/union")

T=$OUT/tests
TOOLS=$OUT/tools
rm -rf "$T"; mkdir -p "$T" "$TOOLS"

build() {	# build OUT SRC...
	local o=$1; shift
	if [ -f "$o" ] && [ -z "$(find "$@" -newer "$o" 2>/dev/null)" ]; then
		return 0
	fi
	$CC "${CFLAGS[@]}" -o "$o" "$@" -lpthread
}

srcs=()
for d in "$TREE/tools/testing/selftests/union" "$REPO/tests/guest"; do
	[ -d "$d" ] || continue
	for c in "$d"/*.c; do
		[ -f "$c" ] && srcs+=("$c")
	done
done
mkdir -p "$OUT/objs"
for c in "${srcs[@]}"; do
	n=$(basename "$c" .c)
	build "$OUT/objs/$n" "$c" $(ls "$(dirname "$c")"/*.h 2>/dev/null)
	cp "$OUT/objs/$n" "$T/$n"
done
# Restrict the run to the tests named in TESTS (space separated).
if [ -n "${TESTS:-}" ]; then
	for t in "$T"/*; do
		case " $TESTS " in *" ${t##*/} "*) ;; *) rm -f "$t" ;; esac
	done
fi
BENCH=$OUT/bench
mkdir -p "$BENCH"
for c in "$REPO"/bench/*.c; do
	[ -f "$c" ] || continue
	build "$BENCH/$(basename "$c" .c)" "$c" "$REPO"/bench/*.h
done
for c in "$REPO"/tools/*.c; do
	[ -f "$c" ] || continue
	n=$(basename "$c" .c)
	build "$TOOLS/$n" "$c"
done

# --- initramfs -------------------------------------------------------------
R=$OUT/initramfs
rm -rf "$R"
mkdir -p "$R"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,mnt,run,root,etc,srv,tests}
cp /bin/busybox "$R/bin/busybox"
# util-linux's mount and umount take the place of busybox's applets in
# /bin (what exec's /bin/mount or searches PATH gets them: the tests, the
# login shell through /etc/profile below); findmnt is util-linux's only
cp "$OUT/util-linux/mount" "$OUT/util-linux/umount" "$R/bin/"
cp "$OUT/util-linux/findmnt" "$R/usr/bin/"
for a in $(/bin/busybox --list-full); do
	[ -e "$R/$a" ] || ln -s /bin/busybox "$R/$a"
done
cp "$REPO/guest/init" "$R/init"
cp -a "$REPO"/guest/etc/. "$R/etc/" 2>/dev/null || true
cp "$T"/* "$R/tests/" 2>/dev/null || true
cp "$TOOLS"/* "$R/usr/bin/" 2>/dev/null || true
mkdir -p "$R/bench"
cp "$BENCH"/* "$R/bench/" 2>/dev/null || true
[ ! -f "$REPO/bench/run-guest.sh" ] || cp "$REPO/bench/run-guest.sh" "$R/bench/run.sh"
# busybox sh runs its own applets before it looks at PATH: the login
# shell's mount and umount are util-linux's (scripts: /bin/mount, /bin/umount)
cat >> "$R/etc/profile" <<'PROFILE'
mount() { /bin/mount "$@"; }
umount() { /bin/umount "$@"; }
PROFILE
# A real system's users and modes: tests drop to uid 1000/1001 with
# setresuid() and must reach / and /tmp as any user would.
cat > "$R/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/bin/sh
alice:x:1000:1000:unprivileged user:/tmp:/bin/sh
bob:x:1001:1001:second unprivileged user:/tmp:/bin/sh
carol:x:1002:1002:third unprivileged user:/tmp:/bin/sh
nobody:x:65534:65534:nobody:/:/bin/false
PASSWD
cat > "$R/etc/group" <<'GROUP'
root:x:0:
alice:x:1000:
bob:x:1001:
carol:x:1002:
shared:x:2000:alice,bob
nogroup:x:65534:
GROUP
chmod 0755 "$R" "$R"/bin "$R"/sbin "$R"/usr "$R"/usr/bin "$R"/usr/sbin "$R"/etc \
	"$R"/mnt "$R"/srv "$R"/tests "$R"/bench "$R"/run
chmod 0700 "$R/root"
chmod 1777 "$R/tmp"
chmod 0644 "$R/etc/passwd" "$R/etc/group"
(cd "$R" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) > "$OUT/initrd.cpio"
"$REPO/scripts/build-stress.sh"	# appends /stress and stress-ng (README: Stress)
"$REPO/scripts/build-realtools.sh"	# appends /opt/real: git, tar, dpkg, rsync (README)
msg "out/initrd.cpio: $(ls "$T" | wc -l) test programs, $(du -h "$OUT/initrd.cpio" | cut -f1)"
