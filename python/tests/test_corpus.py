from rebench_env.assets.corpus_builder import CorpusSpec, normalize, split_of
from rebench_env.assets.sources import SOURCES, read_source


def test_normalize_makes_text_canonical():
    assert normalize("  a\tb  \r\n  c\n\n\n\n  d\n") == "a b\nc\n\nd"  # tab stops every 4 columns
    assert normalize("e\u0301") == "\u00e9"  # NFC


def test_split_depends_on_the_document_id_only():
    spec = CorpusSpec()
    ids = [f"doc{i}" for i in range(20000)]
    splits = [split_of("kjv", i, spec) for i in ids]
    assert splits == [split_of("kjv", i, spec) for i in ids]
    for name, fraction in (("val", 0.02), ("test", 0.02)):
        assert abs(splits.count(name) / len(ids) - fraction) < 0.005


def test_every_debian_source_yields_documents():
    # The packages are in scripts/apt-packages.txt; a failure here names the one to install.
    for name in SOURCES:
        docs = list(read_source(name, max_docs=30))
        assert len(docs) == 30, name
        assert all(d.source == name and d.text.strip() for d in docs)
        assert len({d.id for d in docs}) == 30, f"{name}: document ids must be unique"


def test_sources_are_split_into_sensible_documents():
    kjv = next(read_source("kjv", 1))
    assert kjv.id == "Genesis 1" and "In the beginning God created" in kjv.text
    jargon = {d.id: d.text for d in read_source("jargon", 400)}
    assert any(":ABEND:" in text for text in jargon.values())
    gcide = list(read_source("gcide", 50))
    assert not any("[1913 Webster]" in d.text for d in gcide)
    pydoc = list(read_source("pydoc", 50))
    assert all("#" in d.id and d.id.split("#")[0].endswith(".rst.txt") for d in pydoc)


def test_a_keyed_split_keeps_the_fractions_and_depends_on_the_secret():
    from rebench_env.assets.keyed_split import keyed_split_of

    ids = [f"doc{i}" for i in range(20000)]
    a = [keyed_split_of("kjv", i, "a" * 64, 0.02, 0.02) for i in ids]
    b = [keyed_split_of("kjv", i, "b" * 64, 0.02, 0.02) for i in ids]
    plain = [split_of("kjv", i, CorpusSpec()) for i in ids]
    assert a == [keyed_split_of("kjv", i, "a" * 64, 0.02, 0.02) for i in ids]
    for name in ("val", "test"):
        assert abs(a.count(name) / len(ids) - 0.02) < 0.005
    val_a = {i for i, s in zip(ids, a) if s == "val"}
    for other in (b, plain):
        overlap = val_a & {i for i, s in zip(ids, other) if s == "val"}
        assert len(overlap) < len(val_a) / 10  # independent: about 2% of val_a by chance
