"""The newer adapters: haystack, unstructured, and new splitters of LangChain, llama-index and
chonkie. Each on a small known document (expected chunks and offsets), the relative-to-absolute
offset conversion of the hierarchies on hand-made trees, the records, and the missing library.

Tests that need a library skip without it (``nox -s slow`` installs the ``peers`` extra).
"""

from __future__ import annotations

import importlib
import socket
import sys
from types import ModuleType
from typing import Any

import pytest

from chunk_contract.integrations import adapters
from chunk_contract.integrations.adapters import haystack, unstructured
from chunk_contract.integrations.adapters._base import Adapter

DOC = "Alpha beta. Gamma delta.\n\nEpsilon zeta eta. Theta."
ADAPTERS = "chunk_contract.integrations.adapters"

#: class path -> the library's import name.
NEW = {
    "haystack:Word": "haystack",
    "haystack:Passage": "haystack",
    "haystack:Recursive": "haystack",
    "haystack:Hierarchical": "haystack",
    "unstructured:Basic": "unstructured",
    "unstructured:ByTitle": "unstructured",
    "llamaindex:Hierarchical": "llama_index.core",
    "llamaindex:SentenceWindow": "llama_index.core",
    "llamaindex:Code": "tree_sitter_python",
    "chonkie:Fast": "chonkie",
    "chonkie:TokenWords": "chonkie",
    "chonkie:TokenBytes": "chonkie",
    "langchain:PythonCode": "langchain_text_splitters",
    "langchain:MarkdownLanguage": "langchain_text_splitters",
    "langchain:Latex": "langchain_text_splitters",
    "langchain:MarkdownSyntax": "langchain_text_splitters",
    "langchain:HtmlHeaders": "langchain_text_splitters",
}
RECORD = ("name", "distribution", "module", "version", "splitter", "unit", "kind", "newlines",
          "promises", "offsets", "choices", "documents")


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No downloads: hub variables set, and any network connection fails loudly."""
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HAYSTACK_TELEMETRY_ENABLED"):
        monkeypatch.setenv(name, "False" if name.startswith("HAYSTACK") else "1")

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise OSError("network access during an adapter test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def _class(path: str) -> type[Adapter]:
    """The adapter class at ``module:Class`` of chunk_contract.integrations.adapters (library
    needed)."""
    module, name = path.split(":")
    pytest.importorskip(NEW[path], reason=f"{NEW[path]} is not installed")
    found = importlib.import_module(f"{ADAPTERS}.{module}")
    cls: type[Adapter] = getattr(found, name)
    return cls


def _split(path: str, document: str, max_size: int, overlap: int = 0) -> list[dict[str, Any]]:
    return _class(path)().split(document, max_size=max_size, overlap=overlap)


def _spans(chunks: list[dict[str, Any]]) -> list[tuple[str, int | None, int | None]]:
    return [(c["text"], c.get("start"), c.get("end")) for c in chunks]


# --------------------------------------------------------------------------- without libraries


def test_haystack_and_unstructured_modules_import_without_their_library(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The modules import with the library unimportable; instantiating says what to install."""
    for module, library, dist in [("haystack", "haystack", "haystack-ai"),
                                  ("unstructured", "unstructured", "unstructured")]:
        monkeypatch.setitem(sys.modules, library, None)  # import raises ImportError
        monkeypatch.delitem(sys.modules, f"{ADAPTERS}.{module}", raising=False)
        fresh: ModuleType = importlib.import_module(f"{ADAPTERS}.{module}")
        adapter = next(v for v in vars(fresh).values()
                       if isinstance(v, type) and issubclass(v, Adapter) and v.name)
        with pytest.raises(ImportError) as caught:
            adapter()
        message = str(caught.value)
        assert "\n" not in message and f"pip install {dist}" in message, message
        assert adapter.name in message
    monkeypatch.undo()
    importlib.reload(haystack)
    importlib.reload(unstructured)


@pytest.mark.parametrize("path", NEW)
def test_records_set_every_field(path: str) -> None:
    """Every new adapter is a full record (the matrix lists its choices and input kind)."""
    module, name = path.split(":")
    if module in ("haystack", "unstructured"):
        cls = getattr(importlib.import_module(f"{ADAPTERS}.{module}"), name)
    else:
        cls = _class(path)
    missing = [f for f in RECORD if getattr(cls, f, None) in (None, "")]
    assert not missing, f"{path} leaves {missing} unset"
    assert cls.documents in ("text", "markdown", "code:python", "html", "latex")
    assert isinstance(cls.choices, dict) and cls.choices
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in cls.choices.items())
    assert cls.unit in ("chars", "bytes", "tokens")
    assert cls.unit != "tokens" or callable(getattr(cls, "count_tokens", None))
    if adapters.library_installed(cls.module):  # the record names the version it was run with
        assert adapters.library_version(cls.distribution) == cls.version, path


def test_haystack_units_count_pieces_with_their_separator() -> None:
    assert haystack.count_units("", " ") == 0
    assert haystack.count_units("a", " ") == 1
    assert haystack.count_units("a b ", " ") == 2  # a trailing space closes the last word
    assert haystack.count_units("a  b", " ") == 3  # "a ", " ", "b", as haystack splits it
    assert haystack.count_units("p\n\nq\n\n", "\n\n") == 2


def test_haystack_hierarchy_offsets_made_absolute_on_a_hand_made_tree() -> None:
    """Root at 0; a child's start is its parent's absolute start plus its own relative one."""
    starts: dict[str, int | None] = {}
    starts["root"] = haystack.absolute_start(None, None, starts)
    starts["b"] = haystack.absolute_start(10, "root", starts)
    starts["c"] = haystack.absolute_start(4, "b", starts)
    assert starts == {"root": 0, "b": 10, "c": 14}
    assert haystack.absolute_start(None, "b", starts) is None  # the library gave none
    assert haystack.absolute_start(3, "unknown", starts) is None  # parent not seen
    starts["lost"] = None
    assert haystack.absolute_start(3, "lost", starts) is None  # a missing offset propagates


def test_llamaindex_hierarchy_offsets_made_absolute_on_a_hand_made_tree() -> None:
    pytest.importorskip("llama_index.core", reason="llama-index-core is not installed")
    from chunk_contract.integrations.adapters import llamaindex

    starts: dict[str, int | None] = {"top": 26, "lost": None}
    assert llamaindex.absolute(26, None, starts) == 26  # top level: already absolute
    assert llamaindex.absolute(5, "top", starts) == 31
    assert llamaindex.absolute(None, "top", starts) is None
    assert llamaindex.absolute(5, "lost", starts) is None


def test_unstructured_elements_are_verbatim_runs_with_headings_as_titles() -> None:
    text = "# Title\nFirst para\nstill.\n\n  Second.\n\n## Only heading\n"
    assert list(unstructured.element_texts(text)) == [
        (True, "# Title"), (False, "First para\nstill."), (False, "Second."),
        (True, "## Only heading"),
    ]


# --------------------------------------------------------------------------- with libraries


def test_haystack_word_windows_and_offsets() -> None:
    assert _spans(_split("haystack:Word", DOC, 3, 1)) == [
        ("Alpha beta. Gamma ", 0, 18),
        ("Gamma delta.\n\nEpsilon zeta ", 12, 39),
        ("zeta eta. Theta.", 34, 50),
    ]


def test_haystack_passages() -> None:
    assert _spans(_split("haystack:Passage", DOC, 1)) == [
        ("Alpha beta. Gamma delta.\n\n", 0, 26), ("Epsilon zeta eta. Theta.", 26, 50),
    ]


def test_haystack_recursive_reports_the_library_offsets() -> None:
    chunks = _split("haystack:Recursive", DOC, 20)
    assert [c["text"] for c in chunks][:2] == ["Alpha beta. Gamma ", "delta.\n"]
    assert all(DOC[c["start"]:c["end"]] == c["text"] for c in chunks)


def test_haystack_hierarchy_children_are_absolute_and_inside_their_parent() -> None:
    chunks = _split("haystack:Hierarchical", DOC, 2)
    by_id = {c["id"]: c for c in chunks}
    assert chunks[0]["start"] == 0 and chunks[0]["text"] == DOC and "parent" not in chunks[0]
    children = [c for c in chunks if "parent" in c]
    assert children and any(c["start"] > 0 for c in children)
    for child in children:
        parent = by_id[child["parent"]]
        assert DOC[child["start"]:child["end"]] == child["text"]
        assert parent["start"] <= child["start"] <= child["end"] <= parent["end"]


def test_llamaindex_hierarchy_children_are_absolute() -> None:
    chunks = _split("llamaindex:Hierarchical", DOC, 10)
    by_id = {c["id"]: c for c in chunks}
    deep = [c for c in chunks if "parent" in c and "parent" in by_id[c["parent"]]]
    assert deep, "a three-level hierarchy has grandchildren"
    for chunk in chunks:
        assert DOC[chunk["start"]:chunk["end"]] == chunk["text"]
    assert ("Epsilon", 26, 33) in _spans(chunks)  # relative 0 in its parent at 26


def test_llamaindex_sentence_window_one_node_per_sentence() -> None:
    assert _spans(_split("llamaindex:SentenceWindow", DOC, 10)) == [
        ("Alpha beta. ", 0, 12), ("Gamma delta.\n\n", 12, 26),
        ("Epsilon zeta eta. ", 26, 44), ("Theta.", 44, 50),
    ]


def test_unstructured_chunks_are_text_only() -> None:
    chunks = _split("unstructured:ByTitle", DOC, 30)
    assert chunks == [{"text": "Alpha beta. Gamma delta."}, {"text": "Epsilon zeta eta. Theta."}]
    assert [c["text"] for c in _split("unstructured:Basic", DOC, 20)] == [
        "Alpha beta. Gamma", "delta.", "Epsilon zeta eta.", "Theta.",
    ]


def test_chonkie_fast_byte_windows() -> None:
    chunks = _split("chonkie:Fast", DOC, 12)
    assert _spans(chunks)[:3] == [("Alpha beta.", 0, 11), (" Gamma delta", 11, 23),
                                  (".\n\n", 23, 26)]


def test_chonkie_token_word_and_byte() -> None:
    words = _split("chonkie:TokenWords", DOC, 3, 1)
    assert _spans(words)[0] == ("Alpha beta. Gamma", 0, 17)
    assert _class("chonkie:TokenWords")().count_tokens("Alpha beta. Gamma") == 3
    data = _split("chonkie:TokenBytes", DOC, 8, 2)
    assert _spans(data)[:2] == [("Alpha be", 0, 8), ("beta. Ga", 6, 14)]


def test_langchain_from_language_and_latex_report_start_index() -> None:
    for path in ("langchain:PythonCode", "langchain:MarkdownLanguage", "langchain:Latex"):
        chunks = _split(path, DOC, 20)
        assert chunks and all(DOC[c["start"]:c["end"]] == c["text"] for c in chunks), path
    code = "def f():\n    return 1\n\n\nclass A:\n    pass\n"
    texts = [c["text"] for c in _split("langchain:PythonCode", code, 24)]
    assert texts == ["def f():\n    return 1", "class A:\n    pass"]


def test_langchain_markdown_syntax_and_html_sections() -> None:
    md = "# A\n\ntext a\n\n## B\n\ntext b\n"
    chunks = _split("langchain:MarkdownSyntax", md, 10)
    assert [c["section"] for c in chunks] == [["A"], ["A", "B"]]
    html = "<h1>A</h1><p>one</p><h2>B</h2><p>two</p>"
    found = [(c["text"], c["section"]) for c in _split("langchain:HtmlHeaders", html, 10)]
    assert ("two", ["A", "B"]) in found


def test_llamaindex_code_splits_at_definitions() -> None:
    pytest.importorskip("llama_index.core", reason="llama-index-core is not installed")
    code = "def f():\n    return 1\n\n\nclass A:\n    pass\n"
    assert _spans(_split("llamaindex:Code", code, 30)) == [
        ("def f():\n    return 1", 0, 21), ("class A:\n    pass", 24, 41),
    ]


def test_every_new_adapter_is_registered_under_its_name() -> None:
    """pyproject's entry points name each new class, under the class's own ``name``."""
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    meta = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))
    points = meta["project"]["entry-points"]["chunk_contract.plugins"]
    registered = {v.removeprefix(f"{ADAPTERS}."): k for k, v in points.items()}
    for path in NEW:
        assert path in registered, f"{path} has no entry point"
        module, name = path.split(":")
        if module in ("haystack", "unstructured"):  # importable without the library
            cls = getattr(importlib.import_module(f"{ADAPTERS}.{module}"), name)
            assert cls.name == registered[path]
    peers = meta["project"]["optional-dependencies"]["peers"]
    for pin in ("haystack-ai==3.4.1", "unstructured==0.27.35", "tree-sitter-python==0.25.0"):
        assert pin in peers
