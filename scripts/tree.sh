#!/usr/bin/env bash
# Manage the kernel work tree: a git repository outside this one, made
# from Debian's linux-source-6.12 tarball (commit tagged "base") with the
# series in patches/ applied on top, one commit per patch.
#
#   tree.sh tree     create the tree if needed and apply the series
#   tree.sh reset    put the tree back to base + the committed series
#                    (uncommitted edits are stashed, never dropped)
#   tree.sh export   rewrite patches/ from the commits above base
#   tree.sh status   exit 1 if the tree holds work that patches/ lacks
#   tree.sh version  print the kernel and package versions
. "$(dirname "$0")/lib.sh"

PATCHES=$REPO/patches
SERIES=$PATCHES/series
# Options that make an unchanged commit export byte-identically.
FP_OPTS=(--no-numbered --no-signature --zero-commit --no-renames
	 --abbrev=12 --no-binary --encoding=UTF-8 --subject-prefix=PATCH)

# Debian's tarball carries a .gitignore that ignores every top-level entry
# ("/*", for its packaging repository): new files in the tree show only as
# ignored, so status looks at ignored files too, and new files are added
# with "git add -f".
tree_dirty() { git_tree status --porcelain --ignored=traditional -uall; }

git_tree() { git -C "$TREE" -c core.abbrev=12 -c diff.noprefix=false \
	-c diff.mnemonicprefix=false -c format.signOff=false \
	-c user.name="union-mounts build" -c user.email="build@localhost" "$@"; }

ensure_source() {
	need_pkgs "${BUILD_PKGS[@]}"
	local have
	have=$(dpkg-query -W -f='${Version}' $SRC_PKG 2>/dev/null || true)
	if [ "$have" = "$PIN_VERSION" ] && [ -f $SRC_TARBALL ]; then
		return 0
	fi
	local sudo=
	[ "$(id -u)" -ne 0 ] && sudo=sudo
	msg "installing $SRC_PKG=$PIN_VERSION"
	$sudo apt-get update -q >/dev/null
	if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
			--allow-downgrades "$SRC_PKG=$PIN_VERSION"; then
		warn "$SRC_PKG $PIN_VERSION is no longer offered by apt;"
		warn "falling back to the newest $SRC_PKG. The series may not apply."
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q $SRC_PKG
	fi
	have=$(dpkg-query -W -f='${Version}' $SRC_PKG)
	[ "$have" = "$PIN_VERSION" ] || warn "using $SRC_PKG $have, pinned is $PIN_VERSION"
}

pkg_version() { dpkg-query -W -f='${Version}' $SRC_PKG 2>/dev/null || echo unknown; }

create_tree() {
	ensure_source
	if [ -d "$TREE/.git" ]; then
		local want have
		want=$(pkg_version)
		have=$(cat "$TREE/.git/union-pkg-version" 2>/dev/null || echo none)
		[ "$want" = "$have" ] && return 0
		warn "work tree was made from $SRC_PKG $have, package is now $want: re-importing"
		git_tree stash push -u -m "before re-import" >/dev/null 2>&1 || true
		mv "$TREE" "$TREE.old.$(date +%s)"
	fi
	msg "unpacking $SRC_TARBALL into $TREE"
	local tmp=$UNION_CACHE/unpack.$$
	rm -rf "$tmp"; mkdir -p "$tmp"
	tar -xJf $SRC_TARBALL -C "$tmp"
	mv "$tmp"/linux-source-6.12 "$TREE"; rmdir "$tmp"
	git -C "$TREE" init -q -b work
	git_tree add -A -f .
	git_tree commit -q -m "Import $SRC_PKG $(pkg_version)" \
		--date="2000-01-01T00:00:00Z"
	git_tree tag -f base >/dev/null
	pkg_version > "$TREE/.git/union-pkg-version"
}

series_list() {
	[ -f "$SERIES" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$SERIES" | grep -v '^$' || true
}

apply_series() {
	local p
	while read -r p; do
		[ -f "$PATCHES/$p" ] || die "series names $p, which is not in patches/"
		git_tree am -q --keep-cr --committer-date-is-author-date \
			"$PATCHES/$p" || { git_tree am --abort || true;
			die "patches/$p does not apply to base"; }
	done < <(series_list)
}

# Does the branch above base hold exactly the committed series?
tree_matches_series() {
	local tmp rc=0
	tmp=$(mktemp -d)
	export_to "$tmp"
	# the kernel series only: patches/util-linux/ is a series of its own
	if ! diff -r "$tmp" "$PATCHES" -x '.*' -x util-linux >/dev/null 2>&1; then
		rc=1
	fi
	rm -rf "$tmp"
	return $rc
}

export_to() {
	local dir=$1
	mkdir -p "$dir"
	local n
	n=$(git_tree rev-list --count base..HEAD)
	if [ "$n" -gt 0 ]; then
		git_tree format-patch -q "${FP_OPTS[@]}" -o "$dir" base..HEAD >/dev/null
	fi
	(cd "$dir" && ls -1 -- *.patch 2>/dev/null || true) > "$dir/series"
}

cmd_tree() {
	create_tree
	local n
	n=$(git_tree rev-list --count base..HEAD)
	if [ "$n" -eq 0 ]; then
		apply_series
	elif ! tree_matches_series; then
		msg "work tree holds commits of its own above base; left as it is"
		msg "(make export to save them, or 'scripts/tree.sh reset' to drop them)"
	fi
	msg "work tree $TREE: $(git_tree rev-list --count base..HEAD) patches above base"
}

cmd_reset() {
	create_tree
	if [ -n "$(tree_dirty)" ]; then
		warn "stashing uncommitted edits in the work tree (git stash list)"
		git_tree stash push --all -q -m "stashed by tree.sh reset $(date -u +%FT%TZ)"
	fi
	if [ "$(git_tree rev-parse HEAD)" != "$(git_tree rev-parse 'base^{commit}')" ] &&
	   ! tree_matches_series; then
		local b
		b=saved-$(date -u +%Y%m%d%H%M%S)
		warn "work tree branch held other commits: kept as branch $b"
		git_tree branch -f "$b" HEAD
	fi
	if tree_matches_series && [ -z "$(tree_dirty)" ]; then
		msg "work tree already is base + the committed series"
		return 0
	fi
	git_tree checkout -q -f -B work base
	git_tree clean -q -f -d -x
	apply_series
	msg "work tree reset to base + $(series_list | wc -l) patches"
}

cmd_export() {
	[ -d "$TREE/.git" ] || die "no work tree (make tree)"
	[ -z "$(tree_dirty)" ] ||
		warn "uncommitted edits in $TREE are not exported: commit them there first"
	local tmp
	tmp=$(mktemp -d)
	export_to "$tmp"
	find "$PATCHES" -maxdepth 1 -name '*.patch' -delete 2>/dev/null || true
	mkdir -p "$PATCHES"
	cp "$tmp"/*.patch "$PATCHES"/ 2>/dev/null || true
	cp "$tmp/series" "$SERIES"
	rm -rf "$tmp"
	msg "exported $(series_list | wc -l) patches to patches/"
}

cmd_status() {
	[ -d "$TREE/.git" ] || { echo "no kernel work tree yet ($TREE)"; return 0; }
	local rc=0 dirty
	dirty=$(tree_dirty)
	if [ -n "$dirty" ]; then
		echo "work tree has uncommitted edits that patches/ lacks:"
		printf '%s\n' "$dirty" | head -20
		rc=1
	fi
	if ! tree_matches_series; then
		echo "commits above base in $TREE differ from patches/ (make export):"
		local tmp; tmp=$(mktemp -d); export_to "$tmp"
		diff -r -q "$PATCHES" "$tmp" -x '.*' -x util-linux |
			sed "s|$tmp|tree|" | head -20 || true
		rm -rf "$tmp"
		rc=1
	fi
	[ $rc -eq 0 ] && echo "patches/ holds all work of $TREE ($(series_list | wc -l) patches)"
	# patches/ itself must be committed in this repository
	if [ -n "$(git -C "$REPO" status --porcelain -- patches)" ]; then
		echo "patches/ has changes not committed to this repository"
		rc=1
	fi
	return $rc
}

cmd_version() {
	local v
	v=$(make -s -C "$TREE" kernelversion 2>/dev/null || echo unknown)
	echo "kernel $v from $SRC_PKG $(cat "$TREE/.git/union-pkg-version" 2>/dev/null || pkg_version)" \
	     "+ $(git_tree rev-list --count base..HEAD) patches (HEAD $(git_tree rev-parse --short HEAD))"
}

case "${1:-}" in
tree) cmd_tree ;;
reset) cmd_reset ;;
export) cmd_export ;;
status) cmd_status ;;
version) cmd_version ;;
*) echo "usage: $0 tree|reset|export|status|version" >&2; exit 2 ;;
esac
