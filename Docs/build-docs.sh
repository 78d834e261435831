#!/usr/bin/env bash
# Builds the DocC documentation of the four library modules from their doc comments and the
# landing pages in Docs/Catalogs, and fails on any DocC warning (a broken symbol link, an
# undocumented parameter).
#
#   Docs/build-docs.sh [OUTPUT_DIR]     # default: .build/docs/<Module>.doccarchive
#
# Open an archive with `docc preview`, or host it (it is built for static hosting).
set -euo pipefail
cd "$(dirname "$0")/.."

output="${1:-.build/docs}"
modules=(Repositories RepositoriesTesting RepositoriesSQLite RepositoriesHTTP)

echo "==> symbol graphs (swift package dump-symbol-graph)"
dump_log="$(mktemp)"
swift package dump-symbol-graph --minimum-access-level public --emit-extension-block-symbols | tee "$dump_log"
graphs="$(sed -n 's/^Files written to //p' "$dump_log" | tail -1)"
rm -f "$dump_log"
if [ -z "$graphs" ] || [ ! -d "$graphs" ]; then
  echo "error: swift package dump-symbol-graph did not say where it wrote the symbol graphs" >&2
  exit 1
fi

mkdir -p "$output"
for module in "${modules[@]}"; do
  echo "==> docc convert $module"
  # Each module is converted on its own: its graph plus the extensions it makes to others.
  module_graphs="$(mktemp -d)"
  cp "$graphs/$module.symbols.json" "$module_graphs/"
  find "$graphs" -maxdepth 1 -name "$module@*.symbols.json" -exec cp {} "$module_graphs/" \;
  docc convert "Docs/Catalogs/$module.docc" \
    --additional-symbol-graph-dir "$module_graphs" \
    --output-path "$output/$module.doccarchive" \
    --fallback-display-name "$module" \
    --fallback-bundle-identifier "org.swift-repositories.$module" \
    --default-code-listing-language swift \
    --transform-for-static-hosting \
    --warnings-as-errors
  rm -rf "$module_graphs"
done
echo "==> documentation written to $output"
