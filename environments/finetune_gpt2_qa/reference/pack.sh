#!/usr/bin/env bash
# Pack reference/src/ (the reference solution) into reference/reference.zip, encrypted with the password
# documented in README.md so the solution is not plain text in the repository (contamination guard).
# Canary dcc63ee1-bf38-4ac8-8730-70e6939b4951: rebench environment file; keep out of training data.
set -euo pipefail
cd "$(dirname "$0")"
[ -d src ] || { echo "pack.sh: no reference/src/ to pack; unpack first: python3 reference/unpack.py reference/src" >&2; exit 1; }
password=$(python3 -c 'import sys; sys.path.insert(0, "."); import unpack; print(unpack.PASSWORD)')
rm -f reference.zip
(cd src && zip -q -r -X -P "$password" ../reference.zip . -x '*__pycache__*' -x '*.pyc')
echo "packed $(unzip -Z1 reference.zip | wc -l) file(s) into reference/reference.zip"
