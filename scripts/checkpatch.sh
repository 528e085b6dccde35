#!/usr/bin/env bash
# Run the work tree's checkpatch.pl on every patch of the series.
. "$(dirname "$0")/lib.sh"
# checkpatch.pl runs scripts/spdxcheck.py, which needs python3-ply
need_pkgs python3-ply
rc=0
while read -r p; do
	[ -n "$p" ] || continue
	echo "== $p"
	(cd "$TREE" && ./scripts/checkpatch.pl --no-signoff -q \
		--ignore FILE_PATH_CHANGES "$REPO/patches/$p") || rc=1
done < <(sed -e 's/#.*//' "$REPO/patches/series" | grep -v '^[[:space:]]*$')
exit $rc
