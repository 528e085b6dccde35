#!/usr/bin/env bash
# The util-linux series: mount(8), umount(8) and findmnt(8) that know union
# layers (patches/util-linux/ + series), against the source of Debian 12's
# util-linux package.  The work tree is a git repository outside this one,
# like the kernel's: Debian's source (orig tarball + Debian's patches,
# unpacked by dpkg-source) is the commit tagged "base", the series goes on
# top, one commit per patch.
#
#   util-linux.sh tree     create the tree if needed and apply the series
#   util-linux.sh reset    put the tree back to base + the committed series
#   util-linux.sh export   rewrite patches/util-linux/ from the commits above base
#   util-linux.sh status   exit 1 if the tree holds work patches/util-linux/ lacks
#   util-linux.sh build    tree (reset under CI=true), then build the static
#                          mount, umount, findmnt into out/util-linux/
#
# The source comes through apt with a private configuration (a deb-src line
# for bookworm, its own lists and cache under $UNION_CACHE/util-linux-apt):
# the host's apt setup is left as it is.  apt checks the files against the
# signed Sources index.
#
# The build directory ($UNION_CACHE/util-linux-build) keeps a copy of the
# tree that rsync updates by content, so only what the patches change is
# rebuilt; configure runs again only when its options change.  Autotools do
# not run: Debian's patches touch configure.ac, but not for these programs,
# and the copy's files all carry one old time stamp so that make never
# wants to regenerate configure.
. "$(dirname "$0")/lib.sh"

ULTREE=${UNION_UL_TREE:-$UNION_CACHE/util-linux}
UL_VERSION=${UTIL_LINUX_VERSION:-2.38.1-5+deb12u3}
UL_SUITE=bookworm
PATCHES=$REPO/patches/util-linux
SERIES=$PATCHES/series
APTDIR=$UNION_CACHE/util-linux-apt
BDIR=$UNION_CACHE/util-linux-build
UL_OUT=$OUT/util-linux
FP_OPTS=(--no-numbered --no-signature --zero-commit --no-renames
	 --abbrev=12 --no-binary --encoding=UTF-8 --subject-prefix=PATCH)
# Everything but the three programs and the libraries they need is off.
# shellcheck disable=SC2054
CONF_OPTS=(--disable-shared --enable-static --enable-static-programs=mount,umount
	--disable-nls --disable-asciidoc --disable-poman --disable-bash-completion
	--disable-pylibmount --without-python --without-udev --without-systemd
	--without-selinux --without-cryptsetup --without-econf --without-ncurses
	--without-ncursesw --without-tinfo --without-readline --without-libz
	--without-user --without-btrfs --disable-makeinstall-chown
	--disable-makeinstall-setuid CFLAGS="-O2 -g0")

git_ul() { git -C "$ULTREE" -c core.abbrev=12 -c diff.noprefix=false \
	-c diff.mnemonicprefix=false -c format.signOff=false \
	-c user.name="union-mounts build" -c user.email="build@localhost" "$@"; }

tree_dirty() { git_ul status --porcelain --ignored=traditional -uall; }

apt_ul() {
	local o=(-o Dir::Etc::SourceList="$APTDIR/sources.list"
		 -o Dir::Etc::SourceParts=/dev/null
		 -o Dir::State::Lists="$APTDIR/lists"
		 -o Dir::Cache="$APTDIR/cache"
		 -o Debug::NoLocking=1)
	[ "$(id -u)" -ne 0 ] || o+=(-o APT::Sandbox::User=root)
	apt-get "${o[@]}" "$@"
}

# Debian's util-linux source, unpacked (orig + Debian's patches) into $1.
fetch_source() {
	local dest=$1 dl=$APTDIR/src v
	need_pkgs dpkg-dev xz-utils rsync git
	mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" "$dl"
	echo "deb-src http://deb.debian.org/debian $UL_SUITE main" > "$APTDIR/sources.list"
	msg "util-linux: reading the $UL_SUITE Sources index (private apt configuration)"
	apt_ul -q update >/dev/null || die "apt-get update of $APTDIR/sources.list failed"
	rm -rf "$dl"; mkdir -p "$dl"
	if ! (cd "$dl" && apt_ul -q source --download-only "util-linux=$UL_VERSION" >/dev/null); then
		warn "util-linux $UL_VERSION is no longer offered by $UL_SUITE;"
		warn "falling back to the newest one. The series may not apply."
		(cd "$dl" && apt_ul -q source --download-only util-linux >/dev/null) ||
			die "apt-get source util-linux failed"
	fi
	v=$(sed -n 's/^Version: //p' "$dl"/util-linux_*.dsc | head -1)
	[ "$v" = "$UL_VERSION" ] || warn "using util-linux $v, pinned is $UL_VERSION"
	dpkg-source -q --no-check -x "$dl"/util-linux_*.dsc "$dest" >/dev/null ||
		die "dpkg-source -x of util-linux failed"
	rm -rf "$dest/.pc"	# quilt's bookkeeping of Debian's patches
	echo "$v" > "$dest.version"
}

create_tree() {
	[ -d "$ULTREE/.git" ] && return 0
	local tmp=$UNION_CACHE/util-linux.unpack.$$
	rm -rf "$tmp" "$tmp.version"
	fetch_source "$tmp"
	mv "$tmp" "$ULTREE"
	git -C "$ULTREE" init -q -b work
	git_ul add -A -f .
	git_ul commit -q -m "Import util-linux $(cat "$tmp.version") (Debian $UL_SUITE source)" \
		--date="2000-01-01T00:00:00Z"
	git_ul tag -f base >/dev/null
	mv "$tmp.version" "$ULTREE/.git/union-pkg-version"
	msg "util-linux work tree $ULTREE: Debian util-linux $(cat "$ULTREE/.git/union-pkg-version")"
}

series_list() {
	[ -f "$SERIES" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$SERIES" | grep -v '^$' || true
}

apply_series() {
	local p
	while read -r p; do
		[ -f "$PATCHES/$p" ] || die "util-linux series names $p, which is not in patches/util-linux/"
		git_ul am -q --keep-cr --committer-date-is-author-date "$PATCHES/$p" ||
			{ git_ul am --abort || true; die "patches/util-linux/$p does not apply to base"; }
	done < <(series_list)
}

export_to() {
	local dir=$1 n
	mkdir -p "$dir"
	n=$(git_ul rev-list --count base..HEAD)
	if [ "$n" -gt 0 ]; then
		git_ul format-patch -q "${FP_OPTS[@]}" -o "$dir" base..HEAD >/dev/null
	fi
	find "$dir" -maxdepth 1 -name '*.patch' -printf '%f\n' | LC_ALL=C sort > "$dir/series"
}

tree_matches_series() {
	local tmp rc=0
	tmp=$(mktemp -d)
	export_to "$tmp"
	diff -r "$tmp" "$PATCHES" -x '.*' >/dev/null 2>&1 || rc=1
	rm -rf "$tmp"
	return $rc
}

cmd_tree() {
	create_tree
	if [ "$(git_ul rev-list --count base..HEAD)" -eq 0 ]; then
		apply_series
	elif ! tree_matches_series; then
		msg "util-linux work tree holds commits of its own above base; left as it is"
		msg "(scripts/util-linux.sh export to save them, or reset to drop them)"
	fi
}

cmd_reset() {
	create_tree
	if [ -n "$(tree_dirty)" ]; then
		warn "stashing uncommitted edits in the util-linux work tree (git stash list)"
		git_ul stash push --all -q -m "stashed by util-linux.sh reset $(date -u +%FT%TZ)"
	fi
	if tree_matches_series && [ -z "$(tree_dirty)" ]; then
		return 0
	fi
	if [ "$(git_ul rev-parse HEAD)" != "$(git_ul rev-parse 'base^{commit}')" ]; then
		local b
		b=saved-$(date -u +%Y%m%d%H%M%S)
		warn "util-linux work tree branch held other commits: kept as branch $b"
		git_ul branch -f "$b" HEAD
	fi
	git_ul checkout -q -f -B work base
	git_ul clean -q -f -d -x
	apply_series
	msg "util-linux work tree reset to base + $(series_list | wc -l) patches"
}

cmd_export() {
	[ -d "$ULTREE/.git" ] || die "no util-linux work tree ($ULTREE)"
	[ -z "$(tree_dirty)" ] ||
		warn "uncommitted edits in $ULTREE are not exported: commit them there first"
	local tmp
	tmp=$(mktemp -d)
	export_to "$tmp"
	mkdir -p "$PATCHES"
	find "$PATCHES" -maxdepth 1 -name '*.patch' -delete
	cp "$tmp"/*.patch "$PATCHES"/ 2>/dev/null || true
	cp "$tmp/series" "$SERIES"
	rm -rf "$tmp"
	msg "exported $(series_list | wc -l) patches to patches/util-linux/"
}

cmd_status() {
	[ -d "$ULTREE/.git" ] || { echo "no util-linux work tree yet ($ULTREE)"; return 0; }
	local rc=0
	if [ -n "$(tree_dirty)" ]; then
		echo "util-linux work tree has uncommitted edits"; rc=1
	fi
	if ! tree_matches_series; then
		echo "commits above base in $ULTREE differ from patches/util-linux/ (export)"; rc=1
	fi
	[ $rc -eq 0 ] && echo "patches/util-linux/ holds all work of $ULTREE ($(series_list | wc -l) patches)"
	return $rc
}

cmd_build() {
	if [ "${CI:-}" = true ]; then cmd_reset; else cmd_tree; fi
	local src=$BDIR/src obj=$BDIR/obj sum start
	mkdir -p "$BDIR" "$UL_OUT"
	start=$(date +%s)
	if [ ! -d "$src" ]; then
		rsync -rl --exclude=/.git "$ULTREE/" "$src/"
		# one time stamp for all: make must never want to rerun autotools
		find "$src" -exec touch -h -d '2000-01-01 00:00:00' {} +
	else
		# by content: only the files the series changed get a new time
		rsync -rlc --delete --exclude=/.git "$ULTREE/" "$src/"
	fi
	sum=$(printf '%s\n' "${CONF_OPTS[@]}" | sha256sum | cut -d' ' -f1)
	if [ ! -f "$obj/Makefile" ] || [ "$(cat "$obj/.conf.sha" 2>/dev/null)" != "$sum" ]; then
		msg "util-linux: configure"
		rm -rf "$obj"; mkdir -p "$obj"
		(cd "$obj" && "$src/configure" "${CONF_OPTS[@]}" > configure.log 2>&1) ||
			{ tail -30 "$obj/configure.log"; die "util-linux configure failed"; }
		echo "$sum" > "$obj/.conf.sha"
	fi
	# libtool: -all-static links glibc in as well (mount.static and
	# umount.static get it from the Makefile, findmnt from LDFLAGS)
	make -C "$obj" -s -j"$JOBS" mount.static umount.static > "$obj/make.log" 2>&1 ||
		{ grep -v 'statically linked applications' "$obj/make.log" | tail -30;
		  die "util-linux build failed"; }
	make -C "$obj" -s -j"$JOBS" findmnt LDFLAGS=-all-static >> "$obj/make.log" 2>&1 ||
		{ grep -v 'statically linked applications' "$obj/make.log" | tail -30;
		  die "util-linux findmnt build failed"; }
	local p
	for p in mount umount findmnt; do
		local b=$obj/$p
		[ "$p" = findmnt ] || b=$obj/$p.static
		readelf -l "$b" | grep -q INTERP && die "$b is not statically linked"
		strip -o "$UL_OUT/$p" "$b"
	done
	msg "util-linux $(cat "$ULTREE/.git/union-pkg-version") + $(git_ul rev-list --count base..HEAD) patches: mount, umount, findmnt in out/util-linux ($(( $(date +%s) - start ))s)"
}

case "${1:-}" in
tree) cmd_tree ;;
reset) cmd_reset ;;
export) cmd_export ;;
status) cmd_status ;;
build) cmd_build ;;
*) echo "usage: $0 tree|reset|export|status|build" >&2; exit 2 ;;
esac
