"""Pack and unpack the environment's protected sources (problems, reference solutions, candidate pools).

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

The reference solutions, hidden tests and the model's candidate pools must not sit in the repository as plain
text, where crawlers would pick them up. They live in ``sources.enc``: a deterministic ``tar.xz`` of the source
folder, XOR-ed with a SHA-256 counter-mode keystream whose key is PBKDF2-HMAC-SHA256 of a documented password.
This is a contamination guard, not secrecy: the password is in the README.

    python assets/archive.py unpack --out src-unpacked      # edit the files there, then
    python assets/archive.py pack --src src-unpacked        # rewrites sources.enc (byte-identical if unchanged)
"""

from __future__ import annotations

import argparse
import hashlib
import io
import lzma
import os
import sys
import tarfile
from pathlib import Path

PASSWORD = "rebench-rust-codecontests-e8df3d4b"
MAGIC = b"RCCENC1\n"
SALT = b"rebench/rust_codecontests/v1"
HERE = Path(__file__).resolve().parent
DEFAULT_ARCHIVE = HERE.parent / "sources.enc"


def _keystream(key: bytes, length: int) -> bytes:
    blocks = (length + 31) // 32
    return b"".join(hashlib.sha256(key + i.to_bytes(8, "little")).digest() for i in range(blocks))[:length]


def _xor(data: bytes, password: str) -> bytes:
    key = hashlib.pbkdf2_hmac("sha256", password.encode(), SALT, 100_000)
    stream = _keystream(key, len(data))
    n = len(data)
    return (int.from_bytes(data, "little") ^ int.from_bytes(stream, "little")).to_bytes(n, "little")


def _tar_bytes(src: Path) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for path in sorted(p for p in src.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            rel = path.relative_to(src).as_posix()
            data = path.read_bytes()
            info = tarfile.TarInfo(rel)
            info.size = len(data)
            info.mode = 0o644
            info.mtime = 0
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def pack(src: Path, archive: Path = DEFAULT_ARCHIVE, password: str = PASSWORD) -> int:
    """Encrypt ``src`` into ``archive``; returns the archive size in bytes."""
    plain = lzma.compress(_tar_bytes(src), preset=9 | lzma.PRESET_EXTREME)
    body = MAGIC + hashlib.sha256(plain).digest() + _xor(plain, password)
    archive.write_bytes(body)
    return len(body)


def read_members(archive: Path = DEFAULT_ARCHIVE, password: str = PASSWORD) -> dict[str, bytes]:
    """Decrypt the archive in memory: relative path -> file content."""
    raw = archive.read_bytes()
    if not raw.startswith(MAGIC):
        raise ValueError(f"{archive} is not a rust_codecontests source archive (bad header)")
    digest, body = raw[len(MAGIC) : len(MAGIC) + 32], raw[len(MAGIC) + 32 :]
    plain = _xor(body, password)
    if hashlib.sha256(plain).digest() != digest:
        raise ValueError(f"{archive}: wrong password or corrupted archive (checksum mismatch)")
    out: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(lzma.decompress(plain)), mode="r") as tar:
        for member in tar.getmembers():
            if not member.isfile() or member.name.startswith("/") or ".." in member.name.split("/"):
                raise ValueError(f"{archive}: refusing suspicious member {member.name!r}")
            handle = tar.extractfile(member)
            assert handle is not None
            out[member.name] = handle.read()
    return out


def unpack(out_dir: Path, archive: Path = DEFAULT_ARCHIVE, password: str = PASSWORD) -> list[str]:
    """Write every member under ``out_dir`` (created, mode 0700); returns the member names."""
    out_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(out_dir, 0o700)
    members = read_members(archive, password)
    for name, data in members.items():
        target = out_dir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return sorted(members)


def archive_digest(archive: Path = DEFAULT_ARCHIVE) -> str:
    return hashlib.sha256(archive.read_bytes()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_unpack = sub.add_parser("unpack", help="decrypt the archive into a folder")
    p_unpack.add_argument("--out", type=Path, required=True)
    p_pack = sub.add_parser("pack", help="encrypt a folder into the archive")
    p_pack.add_argument("--src", type=Path, required=True)
    for p in (p_unpack, p_pack):
        p.add_argument("--archive", type=Path, default=DEFAULT_ARCHIVE)
        p.add_argument("--password", default=os.environ.get("RUST_CODECONTESTS_PASSWORD", PASSWORD))
    args = parser.parse_args(argv)
    if args.cmd == "unpack":
        names = unpack(args.out, args.archive, args.password)
        print(f"unpacked {len(names)} files into {args.out}", file=sys.stderr)
    else:
        size = pack(args.src, args.archive, args.password)
        print(f"packed {args.src} into {args.archive} ({size} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
