#!/usr/bin/env bash
# The read-only system image of a union root (README "Union root"):
#   build-union-root.sh INITRD IMAGE
# an ext4 file system image holding the busybox tree of INITRD (the first
# archive of out/initrd.cpio: busybox, /init, /tests, /usr/bin/union, ...)
# and the "system" files of guest/union-root/ (/etc/os-release, a config
# directory /etc/system, /usr/share/system-doc, /var/lib/pkgs), owned by
# root as in the initramfs.  qemu.sh attaches it read-only as /dev/vdd when
# UNION_ROOT_IMG names it; guest/init then boots on it with a tmpfs layer.
. "$(dirname "$0")/lib.sh"

INITRD=${1:?usage: build-union-root.sh INITRD IMAGE}
IMG=${2:?usage: build-union-root.sh INITRD IMAGE}
[ -f "$INITRD" ] || die "no $INITRD (make userspace)"

if [ "$(id -u)" -ne 0 ] && [ -z "${FAKEROOTKEY:-}" ]; then
	# file owners in the image are root's, as in the initramfs
	need_pkgs fakeroot
	exec fakeroot -- "$0" "$@"
fi
need_pkgs cpio e2fsprogs

T=$(mktemp -d "$OUT/union-root.XXXXXX")
trap 'rm -rf "$T"' EXIT
# cpio -i reads the first archive of the concatenation: the busybox tree
(cd "$T" && cpio -idm --quiet --no-absolute-filenames) < "$INITRD"
{ [ -x "$T/init" ] && [ -x "$T/bin/busybox" ]; } || die "$INITRD: no /init or busybox"
cp -a "$REPO/guest/union-root/." "$T/"
mkdir -p "$T"/usr/local/bin "$T"/mnt/scratch/{tmpfs,ext4,xfs,btrfs}
chown -R 0:0 "$T"
chmod 0755 "$T" "$T"/etc/system "$T"/usr/share/system-doc "$T"/var/lib/pkgs \
	"$T"/usr/local "$T"/usr/local/bin "$T"/mnt/scratch "$T"/mnt/scratch/*
# room for the tree and a little more (the image is never written)
mb=$(( $(du -sm "$T" | cut -f1) * 5 / 4 + 16 ))
rm -f "$IMG.tmp"
truncate -s "${mb}M" "$IMG.tmp"
mkfs.ext4 -q -F -L union-root -d "$T" "$IMG.tmp" >/dev/null ||
	die "mkfs.ext4 -d $T failed"
mv "$IMG.tmp" "$IMG"
msg "$IMG: ${mb} MiB ext4 system image ($(find "$T" | wc -l) files)"
