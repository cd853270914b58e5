#!/usr/bin/env bash
# Packs the built `layoutproof` with exactly the shared libraries it needs beyond glibc (from
# ldd) into a folder that a device call carries, because the device machine lacks libz3, spdlog,
# fmt, toml++ and xxhash. The folder's `layoutproof` starts the binary through the system's
# dynamic loader with `--library-path` (the bundle's lib/ for this program only: nvcc, ncu and the
# replay programs it spawns keep the device's own libraries, which LD_LIBRARY_PATH would not).
# It also packs the planted findings' source so the device can run `check` on them.
# usage: scripts/gpu/bundle.sh [BINARY (build-rep7/cli/layoutproof)] [DIR (.gpu-bundle)]
# The device needs glibc >= the newest GLIBC_ version the bundle asks for (printed below).
set -euo pipefail
cd "$(dirname "$0")/../.."
binary=${1:-build-rep7/cli/layoutproof}
dir=${2:-.gpu-bundle}
[[ -x $binary ]] || { echo "bundle: no executable $binary (build it first)" >&2; exit 1; }
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
grep -qxF "/$dir/" "$exclude" 2>/dev/null || echo "/$dir/" >>"$exclude"
rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/lib"
strip -o "$dir/bin/layoutproof" "$binary"
# glibc's own libraries stay behind: the device's loader must match its libc.
glibc='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libutil|libmvec|libanl)[.-]'
while read -r name _ path _; do
  [[ $path == /* ]] || continue
  [[ $name =~ $glibc ]] && continue
  cp -L "$path" "$dir/lib/$name"
  strip --strip-unneeded "$dir/lib/$name" 2>/dev/null || true
done < <(ldd "$binary")
cat >"$dir/layoutproof" <<'SH'
#!/bin/sh
# layoutproof from scripts/gpu/bundle.sh: the bundled binary with the bundled libraries.
here=$(dirname "$(readlink -f "$0")")
loader=/lib64/ld-linux-x86-64.so.2
exec "$loader" --library-path "$here/lib" "$here/bin/layoutproof" "$@"
SH
chmod +x "$dir/layoutproof"
need=$(for f in "$dir"/bin/* "$dir"/lib/*; do objdump -T "$f"; done | grep -oE 'GLIBC_2\.[0-9]+' | sort -V -u | tail -1)
echo "$need" >"$dir/GLIBC_NEEDED"
du -sh "$dir"
ls -l "$dir/lib"
echo "bundle needs $need or later (here: $(ldd --version | head -1))"
