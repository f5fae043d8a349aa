#!/usr/bin/env bash
# Copies a checkout's files (tracked, and new ones git does not ignore) into a folder: the gates that build or
# install from a copy (fresh_checkout.sh, py312_gate.sh) must not leave their builds in the tree CI packs.
# Usage: copy_checkout.sh SRC DEST (DEST is made).
set -euo pipefail
src="$1"; dest="$2"
mkdir -p "$dest"
(cd "$src" && git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do if [ -e "$f" ]; then printf '%s\0' "$f"; fi; done |
    xargs -0 cp --parents -t "$dest")
