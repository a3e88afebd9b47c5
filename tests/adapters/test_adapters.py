"""The built-in adapters (chunk_contract.integrations.adapters): catalogue, field mapping,
declarations, runs.

Tests of an adapter whose library is not installed are skipped (CI installs only ``.[dev]``);
the catalogue, the missing-library errors and the CLI listing are tested without any library.
Everything here runs offline: the Hugging Face variables are set and sockets refuse to connect,
so an adapter that tried to download a tokenizer would fail here.
"""

from __future__ import annotations

import importlib
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from chunk_contract.cli.main import main
from chunk_contract.integrations import adapters
from chunk_contract.integrations.adapters import BY_NAME, EXTRA, AdapterInfo
from chunk_contract.transport.loading import load
from chunk_contract.transport.targets import load_here

#: The Python adapters (the LangChain.js ones run out of process: tests/adapters/
#: test_langchainjs.py).
ADAPTERS = tuple(a for a in adapters.ADAPTERS if not a.out_of_process)
#: The adapters of the first round (character units, no hierarchy), whose records must not
#: drift; the later ones have their own tests (tests/adapters/test_adapters20.py).
FIRST_ADAPTERS = frozenset({
    "langchain-recursive", "langchain-character", "langchain-markdown",
    "langchain-markdown-headers", "llamaindex-sentence", "llamaindex-token",
    "llamaindex-markdown", "chonkie-token", "chonkie-sentence", "chonkie-recursive", "semchunk",
    "text-splitter", "text-splitter-markdown",
})
FIRST = tuple(a for a in ADAPTERS if a.name in FIRST_ADAPTERS)
HEADING_PROMISED = frozenset({"langchain-markdown-headers", "llamaindex-markdown"})

SPEC_NAMES = (
    "langchain-recursive",
    "langchain-character",
    "langchain-markdown",
    "langchain-markdown-headers",
    "llamaindex-sentence",
    "llamaindex-token",
    "llamaindex-markdown",
    "chonkie-token",
    "chonkie-sentence",
    "chonkie-recursive",
    "semchunk",
    "text-splitter",
    "text-splitter-markdown",
)

DOC = "Alpha beta. Gamma delta.\n\nEpsilon zeta eta. Theta."
MARKDOWN = "# Title\n\nIntro text here.\n\n## Part\n\nBody of the part.\n"


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No downloads: hub variables set, and any network connection fails loudly."""
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.setenv(name, "1")

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise OSError("network access during an adapter test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def _require(info: AdapterInfo) -> None:
    pytest.importorskip(info.module, reason=f"{info.distribution} is not installed")


def _split(name: str, document: str, max_size: int, overlap: int = 0) -> list[dict[str, Any]]:
    info = BY_NAME[name]
    _require(info)
    return list(load_here(info.target).split(document, max_size=max_size, overlap=overlap))


def _strip_ids(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in c.items() if k != "id"} for c in chunks]


# --------------------------------------------------------------------------- without libraries


def test_catalogue_names_every_spec_adapter_once() -> None:
    assert set(SPEC_NAMES) <= set(BY_NAME)
    assert len(BY_NAME) == len(adapters.ADAPTERS)


@pytest.mark.parametrize("info", ADAPTERS, ids=lambda a: a.name)
def test_catalogue_targets_exist(info: AdapterInfo) -> None:
    module, _, attr = info.target.partition(":")
    path = Path(adapters.__file__).parent / (module.rsplit(".", 1)[-1] + ".py")
    assert path.is_file()
    assert f"class {attr}(" in path.read_text(encoding="utf-8")


def test_catalogue_imports_no_library() -> None:
    # ``llama_index`` alone is a namespace package: finding ``llama_index.core`` imports it,
    # which runs no code; the libraries themselves must stay unimported.
    heavy = (
        "langchain_text_splitters",
        "llama_index.core",
        "chonkie",
        "semchunk",
        "semantic_text_splitter",
    )

    def loaded() -> set[str]:
        return {m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy)}

    before = loaded()
    importlib.reload(adapters)
    installed = [a.name for a in adapters.ADAPTERS if a.installed]  # looks up, imports nothing
    assert set(installed) <= set(BY_NAME)
    assert loaded() == before


@pytest.mark.parametrize("info", ADAPTERS, ids=lambda a: a.name)
def test_missing_library_is_a_clear_import_error(
    info: AdapterInfo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The module imports without its library; instantiating the adapter says what to
    install, in one line."""
    import chunk_contract.integrations.adapters._base as base

    monkeypatch.setattr(base, "library_installed", lambda name: False)
    module = importlib.import_module(info.target.partition(":")[0])
    with pytest.raises(ImportError) as caught:
        getattr(module, info.target.partition(":")[2])()
    message = str(caught.value)
    assert EXTRA in message and "pip install" in message and info.distribution in message
    assert "\n" not in message


def test_cli_reports_a_missing_library_as_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import chunk_contract.integrations.adapters._base as base

    monkeypatch.setattr(base, "library_installed", lambda name: False)
    monkeypatch.delitem(sys.modules, "chunk_contract.integrations.adapters.semchunk", raising=False)
    code = main(["run", "chunk_contract.integrations.adapters.semchunk:Semchunk",
                 "--max-examples", "1"])
    monkeypatch.delitem(sys.modules, "chunk_contract.integrations.adapters.semchunk", raising=False)
    assert code == 2
    err = capsys.readouterr().err
    assert "semchunk" in err and EXTRA in err


def test_list_adapters_shows_every_adapter_and_its_library(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["list", "--adapters"]) == 0
    out = capsys.readouterr().out
    for info in adapters.ADAPTERS:
        line = next(line for line in out.splitlines() if line.startswith(info.name + " "))
        assert info.distribution in line
        assert ("installed" in line) and (("not installed" in line) != info.installed)


# --------------------------------------------------------------------------- with libraries

#: Exact offsets on a simple case: (adapter, document, max_size, overlap, expected texts).
EXACT = [
    ("langchain-recursive", DOC, 30, 0, ["Alpha beta. Gamma delta.", "Epsilon zeta eta. Theta."]),
    ("langchain-character", DOC, 30, 0, ["Alpha beta. Gamma delta.", "Epsilon zeta eta. Theta."]),
    ("langchain-markdown", DOC, 30, 0, ["Alpha beta. Gamma delta.", "Epsilon zeta eta. Theta."]),
    ("llamaindex-sentence", DOC, 30, 0, ["Alpha beta. Gamma delta.", "Epsilon zeta eta. Theta."]),
    # TokenTextSplitter keeps 2 tokens for metadata formatting: 30 means 28 here.
    (
        "llamaindex-token",
        DOC,
        30,
        0,
        ["Alpha beta. Gamma", "delta.\n\nEpsilon zeta eta.", "Theta."],
    ),
    ("chonkie-token", DOC, 30, 0, ["Alpha beta. Gamma delta.\n\nEpsi", "lon zeta eta. Theta."]),
    ("chonkie-sentence", DOC, 30, 0, ["Alpha beta. Gamma delta.\n\n", "Epsilon zeta eta. Theta."]),
    ("chonkie-recursive", DOC, 30, 0, ["Alpha beta. Gamma delta.\n\n", "Epsilon zeta eta. Theta."]),
    ("semchunk", DOC, 30, 0, ["Alpha beta. Gamma delta.", "Epsilon zeta eta. Theta."]),
    ("text-splitter", DOC, 30, 0, ["Alpha beta. Gamma delta.", "Epsilon zeta eta. Theta."]),
    (
        "text-splitter-markdown",
        DOC,
        30,
        0,
        ["Alpha beta. Gamma delta.", "Epsilon zeta eta. Theta."],
    ),
    (
        "llamaindex-markdown",
        MARKDOWN,
        10,
        0,
        ["# Title\n\nIntro text here.", "## Part\n\nBody of the part."],
    ),
]


@pytest.mark.parametrize(
    ("name", "document", "max_size", "overlap", "texts"), EXACT, ids=[e[0] for e in EXACT]
)
def test_offsets_are_exact_on_a_simple_document(
    name: str, document: str, max_size: int, overlap: int, texts: list[str]
) -> None:
    chunks = _split(name, document, max_size, overlap)
    assert [c["text"] for c in chunks] == texts
    for chunk in chunks:
        assert document[chunk["start"] : chunk["end"]] == chunk["text"]
    starts = [c["start"] for c in chunks]
    assert starts == sorted(starts) and starts[0] == document.index(texts[0])


def test_langchain_headers_map_the_heading_path_to_section() -> None:
    chunks = _split("langchain-markdown-headers", MARKDOWN, 10)
    assert [c["section"] for c in chunks] == [["Title"], ["Title", "Part"]]
    assert chunks[0]["text"].startswith("# Title")  # strip_headers=False: the heading stays
    assert all("start" not in c for c in chunks)  # the library reports no offsets


def test_llamaindex_markdown_maps_header_path_and_ids() -> None:
    doc = "# A/B\n\nx\n\n## C\n\ny\n"
    chunks = _split("llamaindex-markdown", doc, 10)
    assert [c["section"] for c in chunks] == [[], ["A/B"]]  # the headings above the node's own
    assert all(isinstance(c["id"], str) and c["id"] for c in chunks)


def test_chonkie_reports_token_count_and_ids() -> None:
    chunks = _split("chonkie-token", DOC, 30)
    assert [c["token_count"] for c in chunks] == [len(c["text"]) for c in chunks]
    assert all(c["id"].startswith("chnk_") for c in chunks)


@pytest.mark.parametrize("info", ADAPTERS, ids=lambda a: a.name)
def test_declarations(info: AdapterInfo) -> None:
    """What the loaded plugin declares is what its record says."""
    _require(info)
    plugin = load(info.target)
    assert plugin.declarations.unit == info.unit
    assert plugin.declarations.kind == info.kind == "text"
    assert plugin.declarations.newlines == info.newlines == "preserve"
    assert plugin.declarations.promises == info.promises
    if info.name in FIRST_ADAPTERS:  # the first round's adapters: characters, two promises
        promised = {"heading_boundary"} if info.name in HEADING_PROMISED else set()
        assert (info.unit, info.promises) == ("chars", promised)



@pytest.mark.parametrize("info", ADAPTERS, ids=lambda a: a.name)
def test_the_pinned_version_is_the_installed_one(info: AdapterInfo) -> None:
    """The record's ``version`` is the one the matrix was made with: the pinned extra."""
    _require(info)
    assert info.installed_version == info.version


#: Adapters that never cut inside an unbroken run (they split only at separators or sentence
#: ends, or at headings), so a run shows nothing of how they count: not collected (rather
#: than skipped: CI fails on a skip, see tests/conftest.py).
NO_CUT_IN_A_RUN = (
    "langchain-markdown-headers", "llamaindex-markdown", "langchain-character", "chonkie-sentence"
)


@pytest.mark.parametrize(
    "info", [a for a in FIRST if a.name not in NO_CUT_IN_A_RUN], ids=lambda a: a.name
)
def test_unit_matches_what_the_library_counts(info: AdapterInfo) -> None:
    """A long unbroken run is cut into pieces of at most max_size codepoints: the library
    counts codepoints, as the adapter declares (astral characters count one each)."""
    document = "\U0001f680" * 25
    chunks = _split(info.name, document, 10)
    # llamaindex-token: the library reserves 2 tokens for metadata formatting.
    expected = 8 if info.name == "llamaindex-token" else 10
    assert max(len(c["text"]) for c in chunks) == expected
    assert "".join(c["text"] for c in chunks) == document


@pytest.mark.parametrize("info", FIRST, ids=lambda a: a.name)
def test_texts_and_offsets_are_deterministic(info: AdapterInfo) -> None:
    first = _strip_ids(_split(info.name, MARKDOWN * 3, 12, 3))
    assert first == _strip_ids(_split(info.name, MARKDOWN * 3, 12, 3))


def test_degenerate_configs_reach_the_library_unchanged() -> None:
    """The adapters neither validate nor repair configs: the library decides (its refusals
    are what config_validation measures)."""
    for name, config in (
        ("langchain-recursive", (0, 0)),
        ("chonkie-token", (5, 5)),
        ("text-splitter", (5, 5)),
        ("llamaindex-token", (5, 6)),
    ):
        info = BY_NAME[name]
        if not info.installed:
            continue
        with pytest.raises(ValueError):
            _split(name, DOC, *config)


@pytest.mark.parametrize("info", ADAPTERS, ids=lambda a: a.name)
def test_contract_run_completes(info: AdapterInfo) -> None:
    """The runner (what ``chunk-contract run`` calls) goes through on the adapter: worker,
    generation, checks, shrinking. Tiny budgets and a few invariants whose violations shrink
    fast; the full run is ``nox -s peers``."""
    _require(info)
    from chunk_contract.engine.runner import RunSettings, run

    only = ("terminates", "no_crash", "codepoint_integrity", "cap_respected")
    settings = RunSettings(
        max_examples=8, seed=1, explore_seconds=5.0, shrink_seconds=0.5, only=only, reproducers=None
    )
    result = run(info.target, settings)
    assert result.examples > 0
    statuses = {r.id: r.status for r in result.results}
    assert {statuses[i] for i in only} <= {"passed", "violated"}
    assert statuses["terminates"] == "passed"


@pytest.mark.parametrize("name", ["langchain-recursive", "semchunk", "text-splitter"])
def test_cli_run_completes(name: str, tmp_path: Path) -> None:
    info = BY_NAME[name]
    _require(info)
    code = main(
        [
            "run",
            info.target,
            "--max-examples",
            "5",
            "--seed",
            "3",
            "-q",
            "--only",
            "terminates,no_crash,span_fidelity,ordered",
            "--reproducers",
            str(tmp_path),
            "--json",
            str(tmp_path / "report.json"),
        ]
    )
    assert code in (0, 1)
    assert (tmp_path / "report.json").is_file()
