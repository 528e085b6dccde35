#!/usr/bin/env bash
# Build fs/ (and the core files the series hooks) of the work tree with
# CONFIG_UNION_MOUNT=n: the hooks must compile away.  Own build directory
# ($UNION_CACHE/build-nounion), so it stays incremental.
. "$(dirname "$0")/lib.sh"

B=$UNION_CACHE/build-nounion
FRAGS=("$REPO/config/base.config" "$REPO/config/nounion.config")
KMAKE=(make -C "$TREE" O="$B" ARCH=x86_64 -j"$JOBS" -s)
[ -f "$TREE/Makefile" ] || die "no kernel work tree at $TREE (make tree)"
mkdir -p "$B"
sum=$(cat "${FRAGS[@]}" | sha256sum | cut -d' ' -f1)
if [ ! -f "$B/.config" ] || [ "$(cat "$B/.fragments.sha" 2>/dev/null)" != "$sum" ]; then
	msg "configuring the CONFIG_UNION_MOUNT=n build"
	"${KMAKE[@]}" tinyconfig >/dev/null
fi
KCONFIG_CONFIG=$B/.config "$TREE/scripts/kconfig/merge_config.sh" \
	-m -O "$B" "$B/.config" "${FRAGS[@]}" >"$B/merge.log" 2>&1 ||
	{ cat "$B/merge.log"; die "merge_config failed"; }
"${KMAKE[@]}" olddefconfig >/dev/null
echo "$sum" > "$B/.fragments.sha"
grep -q '^# CONFIG_UNION_MOUNT is not set' "$B/.config" ||
	die "CONFIG_UNION_MOUNT is not off in $B/.config"
msg "building fs/ with CONFIG_UNION_MOUNT=n in $B"
start=$(date +%s)
"${KMAKE[@]}" fs/
msg "fs/ built with CONFIG_UNION_MOUNT=n in $(( $(date +%s) - start ))s"
