#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# Install every Debian 12 package needed to build and test fscp.
# Non-interactive and idempotent: when everything is already installed, apt
# is not touched at all (no network, no root needed).
set -eu

# The one list.  Keep it sorted by purpose, one package per line.
FSCP_DEPS="
build-essential
autoconf
automake
libtool
pkg-config
libssh-dev
libssl-dev
zlib1g-dev
check
openssh-server
openssh-client
python3
rsync
iproute2
valgrind
procps
groff-base
time
dpkg-dev
debhelper
fakeroot
lintian
mandoc
bash-completion
zsh
"

missing=""
for pkg in $FSCP_DEPS; do
	# "install ok installed" is the only state that means the package is usable.
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	case "$status" in
	"install ok installed") ;;
	*) missing="$missing $pkg" ;;
	esac
done

if [ -z "$missing" ]; then
	echo "install-deps: all build and test packages are present"
	exit 0
fi

echo "install-deps: installing:$missing"
SUDO=""
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO="sudo"
	else
		echo "install-deps: not root and no sudo; install these by hand:$missing" >&2
		exit 1
	fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
# shellcheck disable=SC2086 # word splitting of the package list is intended
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing </dev/null
