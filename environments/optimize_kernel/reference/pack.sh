#!/usr/bin/env bash
# Pack reference/src/ (the reference and best-known solutions) into reference/reference.zip.
# The archive is encrypted with the documented password so that the solutions are not plain text in
# the repository (contamination guard); see README.md, "Reference solutions".
# Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -d src ]; then
  echo "pack.sh: no reference/src/ to pack; unpack first: python reference/unpack.py reference/src" >&2
  exit 1
fi
password=$(python3 -c 'import sys; sys.path.insert(0, "."); import unpack; print(unpack.PASSWORD)')
rm -f reference.zip
(cd src && zip -q -r -X -P "$password" ../reference.zip . -x '*.so' -x '*__pycache__*' -x '*.pyc')
echo "packed $(unzip -Z1 reference.zip | wc -l) files into reference/reference.zip"
