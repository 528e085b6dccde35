#!/usr/bin/env bash
# Install the Debian packages the build and the guest need.
. "$(dirname "$0")/lib.sh"
need_pkgs "${BUILD_PKGS[@]}" "${GUEST_PKGS[@]}"
