#!/usr/bin/env bash
# Build the guest kernel from the work tree.
#   build-kernel.sh debug|bench
# Each flavour has its own build directory ($UNION_CACHE/build-FLAVOUR), so
# switching between them never rebuilds from zero.  The image is copied to
# out/bzImage and out/kernel.txt says which flavour and version it is.
. "$(dirname "$0")/lib.sh"

FLAVOUR=${1:-debug}
case $FLAVOUR in
debug) FRAGS=("$REPO/config/base.config" "$REPO/config/debug.config") ;;
bench) FRAGS=("$REPO/config/base.config" "$REPO/config/bench.config") ;;
*) die "unknown flavour $FLAVOUR (debug or bench)" ;;
esac
B=$UNION_CACHE/build-$FLAVOUR
KMAKE=(make -C "$TREE" O="$B" ARCH=x86_64 -j"$JOBS" -s)

[ -f "$TREE/Makefile" ] || die "no kernel work tree at $TREE (make tree)"
mkdir -p "$B"

configure() {
	local sum base
	sum=$(cat "${FRAGS[@]}" "$0" | sha256sum | cut -d' ' -f1)
	if [ -f "$B/.config" ] && [ "$(cat "$B/.fragments.sha" 2>/dev/null)" = "$sum" ]; then
		# Fragments unchanged: merge them over the current .config,
		# which keeps the rebuild incremental and still turns on an
		# option that the series has only just introduced.
		base=$B/.config
	else
		msg "configuring $FLAVOUR kernel: tinyconfig + ${FRAGS[*]##*/}"
		"${KMAKE[@]}" tinyconfig >/dev/null
		base=$B/.config
	fi
	KCONFIG_CONFIG=$B/.config "$TREE/scripts/kconfig/merge_config.sh" \
		-m -O "$B" "$base" "${FRAGS[@]}" >"$B/merge.log" 2>&1 ||
		{ cat "$B/merge.log"; die "merge_config failed"; }
	"${KMAKE[@]}" olddefconfig >/dev/null
	echo "$sum" > "$B/.fragments.sha"
	# build-each.sh builds commits that predate some options
	[ -n "${UNION_NO_VERIFY:-}" ] || verify
}

# Every option a fragment sets must be in the final .config as written:
# a dependency that silently drops one (a syscall, a file system) would
# let tests pass while testing nothing.
verify() {
	local f line opt want have bad=0
	for f in "${FRAGS[@]}"; do
		while IFS= read -r line; do
			case $line in
			CONFIG_*=*) opt=${line%%=*}; want=${line#*=} ;;
			*) continue ;;
			esac
			have=$(grep -E "^$opt=|^# $opt is not set" "$B/.config" || true)
			if [ "$want" = n ]; then
				case $have in ""|"# $opt is not set") continue ;; esac
			else
				[ "$have" = "$opt=$want" ] && continue
			fi
			echo "config: $opt=$want requested by ${f##*/}, got '${have:-absent}'" >&2
			bad=1
		done < "$f"
	done
	[ $bad -eq 0 ] || die "kernel configuration does not hold what config/ asks for"
}

configure
msg "building $FLAVOUR kernel in $B"
start=$(date +%s)
"${KMAKE[@]}" bzImage
"${KMAKE[@]}" headers_install INSTALL_HDR_PATH="$B/usr" >/dev/null
msg "kernel built in $(( $(date +%s) - start ))s"

cp "$B/arch/x86/boot/bzImage" "$OUT/bzImage"
{
	echo "flavour=$FLAVOUR"
	echo "build_dir=$B"
	echo "release=$(cat "$B/include/config/kernel.release")"
	echo "source=$("$REPO/scripts/tree.sh" version)"
} > "$OUT/kernel.txt"
ln -sfn "$B/usr/include" "$OUT/uapi-include"
msg "out/bzImage: $(grep release= "$OUT/kernel.txt" | cut -d= -f2) ($FLAVOUR)"
