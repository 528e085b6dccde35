#!/usr/bin/env bash
# Real (Debian, dynamically linked) programs for the guest (called by
# build-userspace.sh after it packed out/initrd.cpio): appends one
# compressed cpio archive (the kernel unpacks concatenated archives in turn)
# holding
#   /opt/real/bin/      git, GNU tar, dpkg, dpkg-deb, dpkg-split, dpkg-query,
#                       rsync, GNU sed, cp, mv, rm, strace, ldconfig
#   /usr/lib/git-core/git, /usr/share/git-core/templates
#                       git's exec path and templates, where Debian's git
#                       looks for them
#   /opt/real/share/union-hello_{1.0,2.0}_all.deb
#                       a tiny package (a file, a conffile), built here
#   /lib/x86_64-linux-gnu/..., /lib64/ld-linux-x86-64.so.2
#                       their shared libraries and the dynamic loader
# Busybox's applets stay what the guest runs by default: only a PATH that
# starts with /opt/real/bin gets the real programs (union_tools_test does).
. "$(dirname "$0")/lib.sh"

need_pkgs git tar dpkg rsync sed coreutils strace libc-bin cpio
R=$OUT/realtools-root
rm -rf "$R"
mkdir -p "$R/opt/real/bin" "$R/opt/real/share" "$R/usr/lib/git-core" \
	"$R/usr/share/git-core"

progs=(/usr/bin/git /usr/bin/tar /usr/bin/dpkg /usr/bin/dpkg-deb
       /usr/bin/dpkg-split /usr/bin/dpkg-query /usr/bin/rsync /usr/bin/sed
       /usr/bin/cp /usr/bin/mv /usr/bin/rm /usr/bin/strace)
for p in "${progs[@]}"; do
	[ -x "$p" ] || die "$p missing"
	cp -L "$p" "$R/opt/real/bin/"
done
# dpkg refuses to run without ldconfig in PATH (Debian's is static)
cp -L /sbin/ldconfig "$R/opt/real/bin/ldconfig"
# git runs its own subcommands through its exec path (GIT_EXEC_PATH)
ln "$R/opt/real/bin/git" "$R/usr/lib/git-core/git"
cp -a /usr/share/git-core/templates "$R/usr/share/git-core/templates"

# the libraries at the paths the dynamic linker looks in
for p in "${progs[@]}"; do
	ldd "$p" | awk '/=> \//{ print $3 } /^\t\/.*ld-linux/{ print $1 }'
done | sort -u | while read -r l; do
	mkdir -p "$R$(dirname "$l")"
	cp -L "$l" "$R$l"
done

# union-hello 1.0 and 2.0: /usr/share/union-hello/greeting (version's text)
# and the conffile /etc/union-hello.conf; reproducible (SOURCE_DATE_EPOCH)
deb=$(mktemp -d)
trap 'rm -rf "$deb"' EXIT
for v in 1.0 2.0; do
	p=$deb/union-hello-$v
	mkdir -p "$p/DEBIAN" "$p/usr/share/union-hello" "$p/etc"
	cat > "$p/DEBIAN/control" <<EOF
Package: union-hello
Version: $v
Architecture: all
Maintainer: Union Mounts Tests <union@example.org>
Description: union mounts test package
 A file and a conffile, installed by union_tools_test in the guest.
EOF
	echo /etc/union-hello.conf > "$p/DEBIAN/conffiles"
	echo "hello $v" > "$p/usr/share/union-hello/greeting"
	echo "greeting=$v" > "$p/etc/union-hello.conf"
	chmod -R u=rwX,go=rX "$p"
	SOURCE_DATE_EPOCH=1700000000 dpkg-deb --root-owner-group -Zgzip \
		--build "$p" "$R/opt/real/share/union-hello_${v}_all.deb" >/dev/null
done

chmod -R go-w "$R"
(cd "$R" && find . ! -name . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) |
	gzip -1 > "$OUT/realtools.cpio.z"
# zeros up to a 512-byte boundary (at least 4): an archive appended after
# this one must start 4-byte aligned (see build-stress.sh)
sz=$(stat -c %s "$OUT/realtools.cpio.z")
head -c $(( 4 + (512 - (sz + 4) % 512) % 512 )) /dev/zero >> "$OUT/realtools.cpio.z"
cat "$OUT/realtools.cpio.z" >> "$OUT/initrd.cpio"
msg "real tools: $(du -h "$OUT/realtools.cpio.z" | cut -f1) appended to out/initrd.cpio"
