#!/usr/bin/env bash
# Build the kernel at every commit of the series (each patch must build).
# FROM=N starts at the N-th patch (1-based), for a check of the newest
# patches.  Leaves the work tree at its previous HEAD.
. "$(dirname "$0")/lib.sh"
G=(git -C "$TREE")
[ -z "$("${G[@]}" status --porcelain --untracked-files=no)" ] ||
	die "commit or stash the work tree's edits first"
head=$("${G[@]}" rev-parse --abbrev-ref HEAD)
[ "$head" = HEAD ] && head=$("${G[@]}" rev-parse HEAD)
rc=0
n=0
for c in $("${G[@]}" rev-list --reverse base..HEAD); do
	n=$((n + 1))
	[ "$n" -ge "${FROM:-1}" ] || continue
	"${G[@]}" checkout -q "$c"
	if UNION_NO_VERIFY=1 "$REPO/scripts/build-kernel.sh" "${FLAVOUR:-debug}" >/dev/null 2>"$OUT/build-each.err"; then
		echo "ok   $n $("${G[@]}" log -1 --format=%s "$c")"
	else
		echo "FAIL $n $("${G[@]}" log -1 --format=%s "$c")"; tail -20 "$OUT/build-each.err"
		rc=1
	fi
done
"${G[@]}" checkout -q "$head"
exit $rc
