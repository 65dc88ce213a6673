#!/usr/bin/env bash
# Print the path of a Python >= 3.12: from PATH, or from pyenv even when its shims are not active.
set -u
candidates=(python3.13 python3.12 python3)
for name in "${candidates[@]}"; do
  path="$(command -v "$name" 2>/dev/null)" || continue
  if "$path" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then echo "$path"; exit 0; fi
done
for dir in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*; do
  if [ -x "$dir/bin/python" ]; then echo "$dir/bin/python"; exit 0; fi
done
echo "No Python 3.12 or newer found on PATH or in pyenv; install one (e.g. pyenv install 3.12)." >&2
exit 1
