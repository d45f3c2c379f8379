"""Readers for the Debian-packaged texts the corpus is built from, each yielding whole documents.

Where each package puts its text (Debian 12):

| source  | package            | file(s)                                              | one document        |
|---------|--------------------|------------------------------------------------------|---------------------|
| kjv     | bible-kjv(-text)   | ``/usr/lib/bible.data``, printed by ``/usr/bin/bible`` | a chapter           |
| jargon  | jargon-text        | ``/usr/share/doc/jargon-text/jargon.txt.gz``         | an entry or section |
| gcide   | dict-gcide         | ``/usr/share/dictd/gcide.{dict.dz,index}``           | a dictionary entry  |
| pydoc   | python3-doc        | ``/usr/share/doc/python3.*/html/_sources/**/*.rst.txt`` | a reST section      |

Each reader returns documents in a fixed order; ``max_docs`` stops early (the tiny test corpus).
"""

from __future__ import annotations

import glob
import gzip
import hashlib
import os
import re
import subprocess
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Callable, Iterable, Iterator


@dataclass(frozen=True)
class Document:
    source: str
    id: str
    text: str


@dataclass(frozen=True)
class Source:
    name: str
    package: str
    description: str
    files: Callable[[], list[Path]]  # the raw inputs (hashed into the corpus key)
    read: Callable[[], Iterator[Document]]
    installed_package: Callable[[], str] | None = None  # the package that owns the files, if not ``package``

    def version(self) -> str | None:
        return package_version(self.installed_package() if self.installed_package else self.package)


class SourceMissingError(RuntimeError):
    """A source's files are not installed; the message names the Debian package."""


_DOC_EXCLUDE_HINT = (
    "; if the package is installed but its files are not, the system may exclude /usr/share/doc "
    "(a path-exclude line in /etc/dpkg/dpkg.cfg.d/): remove it and reinstall the package"
)


def _require(paths: Iterable[Path], package: str) -> list[Path]:
    found = list(paths)
    missing = [str(p) for p in found if not p.exists()]
    if not found or missing:
        raise SourceMissingError(
            f"corpus source files missing ({', '.join(missing) or package}): install the Debian package "
            f"{package} (scripts/install-system installs everything in scripts/apt-packages.txt)"
            + _DOC_EXCLUDE_HINT
        )
    return found


# --- King James Bible -------------------------------------------------------------------------------

KJV_DATA = Path("/usr/lib/bible.data")
KJV_PROGRAM = Path("/usr/bin/bible")


def kjv_files() -> list[Path]:
    return _require([KJV_PROGRAM, KJV_DATA, Path("/usr/lib/bible.data.conc")], "bible-kjv")


def read_kjv() -> Iterator[Document]:
    kjv_files()
    text = subprocess.run(
        [str(KJV_PROGRAM), "-l100000", "Gen1:1-Rev22:21"],
        check=True, capture_output=True, env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
    ).stdout.decode("utf-8")  # fmt: skip
    # "Genesis 1" at column 0 starts a chapter; verses follow as "  1 In the beginning ..."
    title, lines = None, []
    for line in text.splitlines():
        if line and not line[0].isspace():
            if title is not None:
                yield Document("kjv", title, title + "\n\n" + "\n".join(lines))
            title, lines = line.strip(), []
        elif line.strip():
            lines.append(line.strip())
    if title is not None:
        yield Document("kjv", title, title + "\n\n" + "\n".join(lines))


# --- The Jargon File --------------------------------------------------------------------------------

JARGON_TEXT = Path("/usr/share/doc/jargon-text/jargon.txt.gz")
_JARGON_ENTRY = re.compile(r"^   :(.+?):")


def jargon_files() -> list[Path]:
    return _require([JARGON_TEXT], "jargon-text")


def read_jargon() -> Iterator[Document]:
    jargon_files()
    with gzip.open(JARGON_TEXT, "rt", encoding="utf-8") as f:
        lines = f.read().splitlines()
    # Column-0 lines are chapter / appendix headings; "   :word: ..." lines start glossary entries.
    chunks: list[tuple[str, list[str]]] = []
    for line in lines:
        entry = _JARGON_ENTRY.match(line)
        if entry:
            chunks.append((entry.group(1), [line]))
        elif line and not line[0].isspace() and not line[0] in "│├┌└":
            chunks.append((line.strip(), [line]))
        elif chunks:
            chunks[-1][1].append(line)
    seen: dict[str, int] = {}
    for title, body in chunks:
        text = "\n".join(body)
        if _is_list_like(body):
            continue  # tables of contents and the glossary's headword lists
        n = seen[title] = seen.get(title, 0) + 1
        yield Document("jargon", title if n == 1 else f"{title}#{n}", text)


def _is_list_like(lines: list[str]) -> bool:
    """True for runs of short lines without prose (indexes, tables of contents)."""
    body = [l.strip() for l in lines[1:] if l.strip()]
    if not body:
        return True
    short = sum(1 for l in body if len(l) < 40 and not l.endswith((".", ":", ";", ",")))
    return len(body) >= 4 and short / len(body) > 0.8


# --- GCIDE (the Collaborative International Dictionary of English) ----------------------------------

GCIDE_DICT = Path("/usr/share/dictd/gcide.dict.dz")
GCIDE_INDEX = Path("/usr/share/dictd/gcide.index")
_DICTD_B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}
_GCIDE_TAG_LINE = re.compile(r"^\s*\[[^\]\n]*\]\s*$", re.MULTILINE)  # "[1913 Webster]", "[PJC]"


def _dictd_number(text: str) -> int:
    value = 0
    for c in text:
        value = value * 64 + _DICTD_B64[c]
    return value


def gcide_files() -> list[Path]:
    return _require([GCIDE_DICT, GCIDE_INDEX], "dict-gcide")


def gcide_entries() -> Iterator[tuple[str, str]]:
    """(headword, entry text) for every entry of the dictionary, in file order, source tags kept."""
    gcide_files()
    with gzip.open(GCIDE_DICT, "rb") as f:  # dictzip is gzip-compatible
        data = f.read()
    spans: dict[int, tuple[int, str]] = {}
    with open(GCIDE_INDEX, encoding="utf-8") as f:
        for line in f:
            headword, offset, length = line.rstrip("\n").split("\t")
            if headword.startswith("00-database"):
                continue
            spans.setdefault(_dictd_number(offset), (_dictd_number(length), headword))
    for offset in sorted(spans):
        length, headword = spans[offset]
        yield headword, data[offset : offset + length].decode("utf-8", errors="replace")


def read_gcide() -> Iterator[Document]:
    seen: dict[str, int] = {}
    for headword, text in gcide_entries():
        n = seen[headword] = seen.get(headword, 0) + 1
        yield Document("gcide", headword if n == 1 else f"{headword}#{n}", _GCIDE_TAG_LINE.sub("", text))


# --- Python documentation sources (reStructuredText) ------------------------------------------------

PYDOC_GLOB = "/usr/share/doc/python3.*/html/_sources"
_RST_UNDERLINE = re.compile(r"^([=\-~^*#\"+`'.:])\1{2,}\s*$")


def pydoc_root() -> Path:
    # the newest versioned folder (python3.11, python3.12 ...); /usr/share/doc/python3 only links to one
    roots = sorted(glob.glob(PYDOC_GLOB), key=lambda p: [int(x) for x in re.findall(r"\d+", p)])
    if not roots:
        raise SourceMissingError(
            f"no Python documentation sources under {PYDOC_GLOB}: install the Debian package python3-doc "
            "(scripts/install-system installs everything in scripts/apt-packages.txt)" + _DOC_EXCLUDE_HINT
        )
    return Path(roots[-1])


def pydoc_package() -> str:
    """``python3.11-doc`` for ``/usr/share/doc/python3.11`` (``python3-doc`` only depends on it)."""
    return f"{pydoc_root().parent.parent.name}-doc"


def pydoc_files() -> list[Path]:
    root = pydoc_root()
    return sorted(p for p in root.rglob("*.rst.txt") if p.is_file())


def read_pydoc() -> Iterator[Document]:
    root = pydoc_root()
    for path in pydoc_files():
        rel = path.relative_to(root).as_posix()
        for i, section in enumerate(_rst_sections(path.read_text(encoding="utf-8", errors="replace"))):
            yield Document("pydoc", f"{rel}#{i}", section)


def _rst_sections(text: str) -> list[str]:
    """Split a reST file before every section title (a line underlined at least as long as itself)."""
    lines = text.splitlines()
    starts = [0]
    for i in range(1, len(lines)):
        title = lines[i - 1].strip()
        if title and _RST_UNDERLINE.match(lines[i]) and len(lines[i].rstrip()) >= len(title) and i - 1 > 0:
            start = i - 2 if i >= 2 and _RST_UNDERLINE.match(lines[i - 2]) else i - 1  # overlined titles
            if start > starts[-1]:
                starts.append(start)
    bounds = starts + [len(lines)]
    return ["\n".join(lines[a:b]) for a, b in zip(bounds, bounds[1:]) if "\n".join(lines[a:b]).strip()]


SOURCES: dict[str, Source] = {
    s.name: s
    for s in [
        Source("kjv", "bible-kjv", "King James Bible, one document per chapter", kjv_files, read_kjv),
        Source("jargon", "jargon-text", "The Jargon File 4.4.7, one document per entry", jargon_files, read_jargon),
        Source("gcide", "dict-gcide", "GCIDE dictionary, one document per entry", gcide_files, read_gcide),
        Source("pydoc", "python3-doc", "Python documentation sources, one document per section", pydoc_files, read_pydoc, pydoc_package),
    ]
}  # fmt: skip


def read_source(name: str, max_docs: int | None = None) -> Iterator[Document]:
    docs = SOURCES[name].read()
    return islice(docs, max_docs) if max_docs is not None else docs


def hash_files(paths: Iterable[Path]) -> str:
    """One sha256 over the names and contents of ``paths`` (in the given order)."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(os.fsencode(str(path)) + b"\0")
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def package_version(package: str) -> str | None:
    """The installed Debian version of ``package``, or None."""
    try:
        out = subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True, check=False
        )
    except FileNotFoundError:
        return None
    return out.stdout.strip() or None
