#!/bin/sh
# Sample layers for trying union(8) in `make vm` (run by /init before the
# shell): /srv/system, a small read-only tree on the ext4 scratch disk;
# /srv/rw, an empty writable tmpfs; /union, an empty directory to stack on.
S=${UNION_SCRATCH:-/mnt/scratch}
base=$S/ext4
grep -qs " $base ext4 " /proc/mounts || base=$S/tmpfs
sys=$base/demo-system

rm -rf "$sys"
mkdir -p "$sys/bin" "$sys/etc" "$sys/share/doc" /srv/system /srv/rw /union
echo "a read-only system tree, the lower layer" > "$sys/README"
echo "welcome to the union demo" > "$sys/etc/motd"
echo "union-guest" > "$sys/etc/hostname"
printf '#!/bin/sh\necho hello from the system layer\n' > "$sys/bin/hello"
chmod 755 "$sys/bin/hello"
echo "union(8): stack directories" > "$sys/share/doc/union.txt"

mount --bind "$sys" /srv/system &&
	mount -o remount,bind,ro /srv/system &&
	mount -t tmpfs -o size=16m,mode=0755 demo-rw /srv/rw || {
	echo "union-demo: could not set up /srv/system and /srv/rw" >&2
	exit 1
}
union probe >/dev/null 2>&1 || echo "union-demo: this kernel has no union mounts"

cat <<'GUIDE'
union demo: /srv/system (read-only tree), /srv/rw (empty tmpfs), /union (empty)
  union add /srv/system /union       # the system tree, a read-only layer
  union add -c /srv/rw /union        # a writable layer on top; ls -R /union
  echo hi >> /union/etc/motd; ls -R /srv/rw   # copy-up: the copy is on top
  rm /union/README; ls -l /srv/rw    # a whiteout (char 0,0) hides the name
  union show /union; union remove -a /union   # (union --help)
GUIDE
