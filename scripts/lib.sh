# shellcheck shell=bash
# Common settings for the build and test scripts.  Sourced, not run.
#
# UNION_CACHE   where the kernel work tree and build directories live
#               (default ~/.cache/union-mounts); never inside the repository.
# LINUX_SOURCE_VERSION  the Debian linux-source-6.12 version we pin.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
UNION_CACHE=${UNION_CACHE:-$HOME/.cache/union-mounts}
TREE=${UNION_TREE:-$UNION_CACHE/linux}
OUT=$REPO/out
PIN_VERSION=${LINUX_SOURCE_VERSION:-6.12.118-1~deb12u1}
SRC_PKG=linux-source-6.12
SRC_TARBALL=/usr/src/linux-source-6.12.tar.xz
LOCK=${UNION_LOCK:-/tmp/union-mounts.lock}
JOBS=${JOBS:-$(nproc)}

mkdir -p "$UNION_CACHE" "$OUT"

msg()  { printf '==> %s\n' "$*" >&2; }
warn() { printf '\033[1;33mWARNING:\033[0m %s\n' "$*" >&2; }
die()  { printf 'error: %s\n' "$*" >&2; exit 1; }

# Run "$@" holding the machine-wide lock: a kernel build or a QEMU run
# takes both cores, so two of them must never overlap (helpers and other
# checkouts share the machine).  Re-entrant through UNION_LOCKED.
with_lock() {
	if [ -n "${UNION_LOCKED:-}" ]; then
		"$@"
	else
		exec 9>>"$LOCK"
		if ! flock -n 9; then
			msg "waiting for another build or guest run ($LOCK)"
			flock 9
		fi
		UNION_LOCKED=1 "$@"
	fi
}

# Install Debian packages that are missing (apt-get update once first).
need_pkgs() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	msg "installing Debian packages: ${missing[*]}"
	local sudo=
	[ "$(id -u)" -ne 0 ] && sudo=sudo
	$sudo apt-get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
}

BUILD_PKGS=(build-essential flex bison bc libelf-dev libssl-dev cpio kmod
	    git rsync xz-utils util-linux)
GUEST_PKGS=(qemu-system-x86 busybox-static e2fsprogs xfsprogs btrfs-progs)

# The steps of make check that boot guests of their own, after check.sh
# (union-root-test.sh, crash-reset-test.sh), each around one test program
# NAME: with TESTS set (a targeted make check) the step runs only if TESTS
# names NAME, else it says so under LABEL and exits 0.
boot_step_needs() {	# NAME LABEL
	if [ -n "${TESTS:-}" ]; then
		case " $TESTS " in
		*" $1 "*) ;;
		*) msg "$2: not run (TESTS does not name $1)"; exit 0 ;;
		esac
	fi
	[ -x "$OUT/tests/$1" ] || die "no $OUT/tests/$1 (make userspace)"
}

# Judge the boot logged in out/TAG-{ttyS1,console}.log and out/TAG-qemu.txt
# with report.sh, print its lines after "PREFIX: " and add its counts to
# the caller's passed, failed and skipped (a missing summary is a failure).
judge_boot() {	# PREFIX TAG
	local out counts p f s
	out=$("$REPO/scripts/report.sh" "$OUT/$2-ttyS1.log" \
		"$OUT/$2-console.log" "$OUT/$2-qemu.txt") || true
	printf '%s\n' "$out" | sed "s/^/$1: /"
	counts=$(tail -1 <<<"$out" |
		sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p')
	if [ -z "$counts" ]; then
		echo "FAIL: $1: no summary from report.sh"
		failed=$((failed + 1))
		return 0
	fi
	read -r p f s <<<"$counts"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}
