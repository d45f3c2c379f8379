# Sourced by scripts/device/*.sh: stage_assets DIR makes every carried .gpu/assets/<name>/ (asset.json
# beside the files; *.xz decompressed there, with Python's lzma: the GPU image may have no xz) a built asset
# of DIR (DIR/<name> links to it).
stage_assets() {
  mkdir -p "$1"
  for asset in .gpu/assets/*/; do
    [ -d "$asset" ] || continue
    for xz in "$asset"*.xz; do
      [ -f "$xz" ] && python3 -c "import lzma, os, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3], 'wb')); os.remove(sys.argv[1])" "$xz"
    done
    ln -sfn "$(cd "$asset" && pwd)" "$1/$(basename "$asset")" && echo "asset $(basename "$asset")"
  done
}
