#!/usr/bin/env bash
# Install Debian packages when running as root with apt; otherwise say what to install and fail.
# Usage: tools/apt-install.sh PACKAGE...
set -euo pipefail
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing $* with apt-get ..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
else
  echo "Missing: $*. Install it (sudo apt-get install $*) and run this again." >&2
  exit 1
fi
