"""Reviewed explanations of every violation the contract reports for the built-in adapters.

Each entry was written after reproducing the counterexample by hand and reading the library's
source at the pinned version (see ``noxfile.py``'s ``peers`` session). ``expect`` is a regular
expression that the reported message must match for the explanation to apply; when a run finds
the same invariant broken in a way the review did not see, ``docs/conformance.md`` says so and
``python -m contract.integrations.adapters.conformance --strict`` fails, so that a person looks again.

Verdicts:

* ``bug``: the behaviour contradicts the library's own documentation or evident intent;
* ``documented``: the documentation says the library does this (cited in ``docs``);
* ``design``: deliberate in the code (a comment, an explicit branch), but not documented;
* ``disputed``: the contract's rule, not the library, is arguable here (see CONTRACT_NOTES).
"""

from __future__ import annotations

from dataclasses import dataclass

VERDICTS = {
    "bug": "library bug",
    "documented": "documented behaviour",
    "design": "by design (undocumented)",
    "disputed": "disputed (contract rule)",
}


@dataclass(frozen=True)
class Finding:
    verdict: str
    summary: str  # one line, for the summary list
    explanation: str  # one paragraph: the cause in the library's code
    where: str  # the library source that does it
    docs: str = ""  # for "documented": the citation
    expect: str = ""  # regex the counterexample's message must match

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {self.verdict!r}")


# --------------------------------------------------------------------------- shared causes

_LC_START_INDEX = (
    "LangChain does not track where a chunk came from: `TextSplitter.create_documents` "
    "recovers `start_index` by searching the document with "
    "`text.find(chunk, max(0, index + previous_chunk_len - chunk_overlap))`. The search "
    "starts at (or before) the previous chunk's start, so when the chunk's text also occurs "
    "earlier (repeated words, numbers such as `3.1` inside `3.14`, a chunk made of one repeated "
    "character) it locks onto that earlier occurrence; the reported span then covers text that "
    "is not the chunk's, and the real place of the chunk is reported by no chunk."
)
_LC_WHITESPACE_OVERLAP = (
    "LangChain's `_merge_splits` keeps up to `chunk_overlap` characters of the previous "
    "chunk's splits to start the next one, counting whitespace splits too; `_join_docs` "
    "strips each chunk only afterwards. When the kept splits are the previous chunk plus "
    "whitespace, the next chunk starts exactly where the previous one started (document "
    "`' aa'`, size 2, overlap 1 gives `'a'` then `'aa'`): the previous chunk is emitted again "
    "inside the next one."
)
_LC_RAW_SPLIT = (
    "In `RecursiveCharacterTextSplitter._split_text`, a split that is not strictly shorter "
    "than `chunk_size` (`self._length_function(s) < self._chunk_size` is false) and has no finer "
    "separator left is appended to the output as it is (`final_chunks.append(s)`), bypassing "
    "`_join_docs`, which is where chunks are stripped and empty ones dropped. With the last "
    'separator `""` every split is one character, so at `chunk_size=1` each space or newline '
    "becomes a chunk of its own. `strip_whitespace=True` (the default) is documented to strip "
    "whitespace from the start and end of every chunk."
)
_LLAMA_FIND = (
    "LlamaIndex nodes carry no offsets from the splitter: `NodeParser._postprocess_parsed_nodes` "
    "recovers `start_char_idx` with `parent_doc.text.find(node_content, search_start)`, where "
    "`search_start` is the previous node's start + 1 (so that overlapping nodes can be found). "
    "When a node's text also occurs inside the previous node (repeated characters, `##` inside "
    "`#####`, `aa` inside `aaa`), `find` returns that earlier occurrence: the node is reported "
    "over text it does not come from, its real place is covered by no node, and neighbours "
    "appear to overlap. A node whose text is not found at all keeps no offsets."
)
_LLAMA_WHITESPACE_OVERLAP = (
    "the splitters' `_merge` keeps up to `chunk_overlap` tokens of the previous chunk's splits "
    "(whitespace splits included) to start the next chunk, and strips chunks only afterwards "
    "(`_postprocess_chunks` / `.strip()`), so a new chunk can start where the previous one "
    "started and repeat it whole."
)
_IDS_LLAMA = (
    "Every node gets a fresh id: the default `id_func` of LlamaIndex node parsers is "
    "`node_utils.default_id_func`, which returns `str(uuid.uuid4())`, so a second call on the "
    "same document never gives the same ids. Texts and offsets are deterministic (checked by "
    "tests/adapters); a caller who needs stable ids passes `id_func`."
)
_IDS_CHONKIE = (
    "Every chunk gets a fresh id: chonkie's `Chunk.id` defaults to `generate_id('chnk')`, i.e. "
    "`chnk_` + `uuid4().hex`, so a second call on the same document never gives the same ids. "
    "Texts and offsets are deterministic (checked by tests/adapters); chonkie has no parameter "
    "for content-derived ids."
)
_LC_OVERLAP_EQUAL = (
    "`TextSplitter.__init__` rejects only `chunk_overlap > chunk_size` (its docstring: "
    '"ValueError: If chunk_overlap is greater than chunk_size"), so `chunk_overlap == '
    "chunk_size`, which the contract counts as degenerate, is accepted and chunked like a valid "
    "config."
)
_TS_OVERFLOW = (
    "The binding converts `overlap` (and `capacity`) to Rust `usize` with PyO3; a negative "
    "Python int fails that conversion with `OverflowError: can't convert negative int to "
    "unsigned` (for `overlap`) or a `TypeError` wrapping it (for `capacity`). The config is "
    "refused, but with `OverflowError`, an `ArithmeticError`, where the contract asks for "
    "`ValueError` or `TypeError`; `overlap >= capacity` is refused with `ValueError`."
)
_TS_QUADRATIC = (
    "For every chunk, `TextChunks::update_next_sections` asks `find_correct_level` which "
    "semantic level to split at, and sizes the *first section of each fallback level of the "
    "whole remaining text* (`FallbackLevel::sections(remaining_text).next()`: the first "
    "sentence, the first word). When the rest of the document has no sentence or word break "
    "(`'aaaa...'`, unbroken CJK, prose without full stops) that first section is the entire "
    "rest of the document, so each chunk costs time proportional to what remains and a "
    "document costs O(n^2 / capacity). Measured at capacity 200: 100,000 `'a'` take 1.4 s, "
    "200,000 take 5.5 s; unbroken CJK takes 14 s at 100,000 characters (word segmentation of "
    "the whole remainder each time). The wheel ships compiled code; the cause was read in the "
    "crate's source (github.com/benbrandt/text-splitter) and matches the measured growth."
)

FINDINGS: dict[tuple[str, str], Finding] = {}


def _add(adapters: tuple[str, ...], invariant: str, finding: Finding) -> None:
    for name in adapters:
        FINDINGS[(name, invariant)] = finding


_LC_RECURSIVE = ("langchain-recursive", "langchain-markdown")
_SPLITTER = "langchain_text_splitters/character.py, `RecursiveCharacterTextSplitter._split_text`"

_add(
    _LC_RECURSIVE,
    "non_empty",
    Finding(
        "bug",
        "a split of exactly chunk_size at the last separator level is emitted unstripped, "
        "so whitespace becomes a chunk",
        _LC_RAW_SPLIT,
        _SPLITTER,
        expect=r"whitespace-only|is empty",
    ),
)
_add(
    _LC_RECURSIVE,
    "no_lost_text",
    Finding(
        "bug",
        "`start_index` is found with `str.find` and lands on an earlier repeat of the text",
        _LC_START_INDEX,
        "langchain_text_splitters/base.py, `TextSplitter.create_documents`",
        expect=r"lies in no chunk",
    ),
)
_add(
    _LC_RECURSIVE,
    "ordered",
    Finding(
        "bug",
        "overlap counted with whitespace that is stripped later repeats the previous chunk "
        "whole; `find`-based `start_index` misplaces repeats",
        f"Two causes. First, {_LC_WHITESPACE_OVERLAP} Second, offsets: {_LC_START_INDEX}",
        "langchain_text_splitters/base.py, `TextSplitter._merge_splits`, `_join_docs`, "
        "`create_documents`",
        expect=r"start does not increase|end decreases|does not occur after",
    ),
)
_add(
    _LC_RECURSIVE,
    "overlap_bounded",
    Finding(
        "bug",
        "`find`-based `start_index` places a chunk on an earlier repeat, inside its neighbour",
        _LC_START_INDEX,
        "langchain_text_splitters/base.py, `TextSplitter.create_documents`",
        expect=r"> overlap",
    ),
)
_add(
    _LC_RECURSIVE,
    "config_validation",
    Finding(
        "bug",
        "`chunk_overlap == chunk_size` is accepted, and the output has the valid-config defects",
        f"{_LC_OVERLAP_EQUAL} The output then shows the defects found on valid configs (here the "
        "whitespace-only chunk of `non_empty`, elsewhere misplaced `start_index` values).",
        "langchain_text_splitters/base.py, `TextSplitter.__init__`",
        expect=r"was neither refused",
    ),
)

_add(
    ("langchain-character",),
    "cap_respected",
    Finding(
        "documented",
        'splits only at `"\\n\\n"`; a longer paragraph stays one chunk',
        '`CharacterTextSplitter.split_text` splits at its one separator (`"\\n\\n"` by default) '
        "and `_merge_splits` only merges pieces; a piece longer than `chunk_size` is never cut, "
        "and `_merge_splits` just logs `Created a chunk of size N, which is longer than the "
        "specified M`.",
        "langchain_text_splitters/character.py, `CharacterTextSplitter.split_text`; base.py, "
        "`TextSplitter._merge_splits`",
        docs='LangChain, "How to split text by tokens" (python.langchain.com/docs/how_to/'
        'split_by_token/): text split by `CharacterTextSplitter` "can be larger than the '
        'chunk size"; `RecursiveCharacterTextSplitter` is the one recommended "to make sure '
        'splits are not larger than chunk size".',
        expect=r"> max_size",
    ),
)
_add(
    ("langchain-character",),
    "config_validation",
    Finding(
        "documented",
        "`chunk_overlap == chunk_size` is accepted; the chunks then break the cap as "
        "on valid configs",
        f"{_LC_OVERLAP_EQUAL} The output then breaks `cap_respected` exactly as on valid configs: a "
        "piece without the separator is never cut.",
        "langchain_text_splitters/base.py, `TextSplitter.__init__`",
        docs="`TextSplitter.__init__` docstring (raises only if `chunk_overlap` is greater than "
        "`chunk_size`); see `cap_respected`.",
        expect=r"max_size=\d+, overlap=\d+ was",
    ),
)

_add(
    ("langchain-markdown-headers",),
    "cap_respected",
    Finding(
        "documented",
        "the splitter has no size parameter: a section is one chunk however long",
        "`MarkdownHeaderTextSplitter` takes no `chunk_size`: it groups lines by heading path and "
        "returns each group whole. The adapter ignores `max_size` and `overlap`, as the library "
        "does.",
        "langchain_text_splitters/markdown.py, `MarkdownHeaderTextSplitter.split_text`",
        docs='LangChain, "Split markdown" (MarkdownHeaderTextSplitter) integration page, "How to '
        'constrain chunk size": "Within each markdown group we can then apply any text '
        'splitter we want, such as RecursiveCharacterTextSplitter".',
        expect=r"> max_size",
    ),
)
_add(
    ("langchain-markdown-headers",),
    "span_fidelity",
    Finding(
        "documented",
        'lines are stripped and re-joined with `"  \\n"`: chunks are not slices',
        "`split_text` strips every line (`line.strip()`), drops non-printable characters, joins "
        'the lines of one block with `"\\n"` and `aggregate_lines_to_chunks` joins blocks of '
        'the same section with `"  \\n"` (a markdown hard break). Blank lines disappear and '
        "indentation is lost, so a chunk's text is rewritten, not cut from the document.",
        "langchain_text_splitters/markdown.py, `MarkdownHeaderTextSplitter.split_text`, "
        "`aggregate_lines_to_chunks`",
        docs='LangChain, "Split markdown" integration page: "The default '
        "MarkdownHeaderTextSplitter strips white spaces and new lines. To preserve the "
        "original formatting of your Markdown documents, check out "
        'ExperimentalMarkdownSyntaxTextSplitter"; its example output shows '
        "`'Hi this is Jim  \\nHi this is Joe'`.",
        expect=r"occurs nowhere|holds",
    ),
)
_add(
    ("langchain-markdown-headers",),
    "no_lost_text",
    Finding(
        "design",
        "non-printable characters (U+200B, U+2029, unassigned code points) are deleted",
        '`split_text` filters every line through `"".join(filter(str.isprintable, '
        'stripped_line))` (commented "Remove all non-printable characters from the string, '
        'keeping only visible text"). Characters that are not whitespace but not printable '
        "either (zero-width space U+200B, format and private-use characters, unassigned code "
        "points, U+2029) vanish from the output; a document made only of them gives no chunk.",
        "langchain_text_splitters/markdown.py, `MarkdownHeaderTextSplitter.split_text`",
        expect=r"lies in no chunk",
    ),
)
_add(
    ("langchain-markdown-headers",),
    "config_validation",
    Finding(
        "documented",
        "no size or overlap parameter to validate; output breaks the same rules as "
        "on valid configs",
        "The splitter has no `chunk_size` or `chunk_overlap`, so no config is ever refused; on a "
        "degenerate config the output is the same as on any other and breaks `cap_respected` / "
        "`span_fidelity` as described there.",
        "langchain_text_splitters/markdown.py, `MarkdownHeaderTextSplitter.__init__`",
        docs="See `cap_respected`: the splitter is documented without size parameters.",
        expect=r"was neither refused",
    ),
)

_LLAMA_TEXT = ("llamaindex-sentence", "llamaindex-token")
_add(
    _LLAMA_TEXT,
    "non_empty",
    Finding(
        "bug",
        "an empty document gives one empty node",
        "`SentenceSplitter._split_text` and `TokenTextSplitter._split_text` begin with "
        '`if text == "": return [text]`, and `build_nodes_from_splits` turns that `""` into a '
        "node, so an empty document yields one node with empty text (and an id) instead of none.",
        "llama_index/core/node_parser/text/sentence.py and text/token.py, `_split_text`",
        expect=r"is empty|whitespace-only",
    ),
)
_add(
    _LLAMA_TEXT,
    "no_lost_text",
    Finding(
        "bug",
        "`start_char_idx` is found with `str.find` from the previous start and lands on an "
        "earlier repeat",
        _LLAMA_FIND,
        "llama_index/core/node_parser/interface.py, `NodeParser._postprocess_parsed_nodes`",
        expect=r"lies in no chunk",
    ),
)
_add(
    _LLAMA_TEXT,
    "overlap_bounded",
    Finding(
        "bug",
        "`find`-based `start_char_idx` places a node inside its neighbour",
        _LLAMA_FIND,
        "llama_index/core/node_parser/interface.py, `NodeParser._postprocess_parsed_nodes`",
        expect=r"> overlap",
    ),
)
_add(
    _LLAMA_TEXT,
    "ordered",
    Finding(
        "bug",
        "`find`-based offsets misplace repeats; overlap counted with stripped whitespace "
        "repeats the previous node whole",
        f"Two causes. First, offsets: {_LLAMA_FIND} Second, {_LLAMA_WHITESPACE_OVERLAP}",
        "llama_index/core/node_parser/interface.py, `_postprocess_parsed_nodes`; "
        "text/sentence.py and text/token.py, `_merge`",
        expect=r"start does not increase|end decreases|does not occur after",
    ),
)
_add(
    ("llamaindex-sentence", "llamaindex-token", "llamaindex-markdown"),
    "deterministic",
    Finding(
        "design",
        "node ids are random UUIDs",
        _IDS_LLAMA,
        "llama_index/core/node_parser/node_utils.py, `default_id_func`",
        expect=r"\.id was",
    ),
)
_add(
    _LLAMA_TEXT,
    "config_validation",
    Finding(
        "bug",
        "`chunk_overlap == chunk_size` is accepted, and the output has the valid-config defects",
        "Both splitters reject only `chunk_overlap > chunk_size` (and, through pydantic, "
        "`chunk_size <= 0` and `chunk_overlap < 0`), so `chunk_overlap == chunk_size` is chunked "
        "like a valid config; the output then shows the defects found on valid configs (the empty "
        "node of an empty document, `find`-based offsets, random ids).",
        "llama_index/core/node_parser/text/sentence.py and text/token.py, `__init__`",
        expect=r"was neither refused",
    ),
)
_add(
    ("llamaindex-token",),
    "no_crash",
    Finding(
        "bug",
        "`chunk_size <= 2` raises ValueError even with `include_metadata=False`",
        "`get_nodes_from_documents` goes through `MetadataAwareTextSplitter._parse_nodes`, which "
        "always calls `split_text_metadata_aware`; `TokenTextSplitter` there reserves the "
        'metadata\'s tokens plus `DEFAULT_METADATA_FORMAT_LEN = 2` "for metadata formatting" '
        "and raises `ValueError: Metadata length (2) is longer than chunk size` when nothing is "
        "left, although `include_metadata=False` and the document has no metadata. A valid "
        "`chunk_size` of 1 or 2 therefore fails, and every chunk is 2 tokens smaller than asked.",
        "llama_index/core/node_parser/interface.py, `MetadataAwareTextSplitter._parse_nodes`; "
        "text/token.py, `split_text_metadata_aware`",
        expect=r"Metadata length",
    ),
)

_add(
    ("llamaindex-markdown",),
    "cap_respected",
    Finding(
        "documented",
        "the parser has no size parameter: a section is one node however long",
        "`MarkdownNodeParser` has no `chunk_size`: it cuts at headings only and returns each "
        "section whole. The adapter ignores `max_size` and `overlap`.",
        "llama_index/core/node_parser/file/markdown.py, `MarkdownNodeParser.get_nodes_from_node`",
        docs='LlamaIndex API reference, `MarkdownNodeParser`: "Splits a document into Nodes using '
        'Markdown header-based splitting logic" (parameters: include_metadata, '
        "include_prev_next_rel, header_path_separator; no size).",
        expect=r"> max_size",
    ),
)
_add(
    ("llamaindex-markdown",),
    "span_fidelity",
    Finding(
        "design",
        "heading lines are rebuilt as `'#' * level + ' ' + text`",
        "When `get_nodes_from_node` meets a heading (`^(#+)\\s(.*)`) it starts the section with "
        '`"#" * header_level + f" {header_text}\\n"` instead of the line itself: a tab or '
        "no-break space after the hashes becomes a space, and the node's text is no longer the "
        "document's.",
        "llama_index/core/node_parser/file/markdown.py, `MarkdownNodeParser.get_nodes_from_node`",
        expect=r"occurs nowhere|holds",
    ),
)
_add(
    ("llamaindex-markdown",),
    "heading_boundary",
    Finding(
        "bug",
        "empty (`#`) and indented (1-3 spaces) ATX headings are not recognised",
        'Headings are detected with `re.match(r"^(#+)\\s(.*)", line)`: the hashes must start '
        "the line and be followed by a whitespace character. An empty heading (`#` or `####` "
        "alone on its line) and a heading indented by one to three spaces, both ATX headings in "
        "CommonMark, are treated as body text, so the section before them runs on past them. (The "
        "pattern also accepts seven or more hashes, which is over-splitting, harmless here.)",
        "llama_index/core/node_parser/file/markdown.py, `MarkdownNodeParser.get_nodes_from_node`",
        expect=r"holds heading",
    ),
)
_add(
    ("llamaindex-markdown",),
    "config_validation",
    Finding(
        "design",
        "no size or overlap parameter to validate; ids are random on every call",
        "The parser has no size or overlap parameters, so no config is ever refused; on a "
        "degenerate config the output is the same as on any other, and breaks `deterministic` "
        "(random node ids) and `cap_respected` as described there.",
        "llama_index/core/node_parser/file/markdown.py",
        expect=r"was neither refused",
    ),
)

_CHONKIE = ("chonkie-token", "chonkie-sentence", "chonkie-recursive")
_RECONSTRUCT = (
    'chonkie documentation, Concepts: an ideal chunk is "Reconstructable: ... '
    'combining chunks should give you the original text back".'
)
_add(
    _CHONKIE,
    "deterministic",
    Finding(
        "design",
        "chunk ids are random UUIDs",
        _IDS_CHONKIE,
        "chonkie/types/base.py, `Chunk.id` (`generate_id`)",
        expect=r"\.id was",
    ),
)
_add(
    ("chonkie-token",),
    "non_empty",
    Finding(
        "documented",
        "fixed token windows keep whitespace, so a window can be only whitespace",
        "`TokenChunker` cuts the token sequence into fixed windows of `chunk_size` tokens "
        "(`_token_group_generator`) and decodes each; only a whitespace-only *document* is skipped "
        "(`if not text.strip(): return []`). A window that falls on spaces or newlines is emitted "
        "as a whitespace-only chunk, which is how chonkie keeps chunks reconstructable.",
        "chonkie/chunker/token.py, `TokenChunker.chunk`",
        docs=_RECONSTRUCT,
        expect=r"whitespace-only|is empty",
    ),
)
_add(
    ("chonkie-recursive",),
    "non_empty",
    Finding(
        "documented",
        "every piece of the text, whitespace included, ends up in some chunk",
        "`RecursiveChunker._recursive_chunk` splits at each level's delimiters with the delimiter "
        "kept, merges pieces up to `chunk_size`, and emits every piece it cannot merge; pieces "
        "that are only whitespace (a lone newline, a run of spaces at a small `chunk_size`, or a "
        "whitespace-only document) become chunks of their own, so that the chunks concatenate to "
        "the document.",
        "chonkie/chunker/recursive.py, `RecursiveChunker._recursive_chunk`",
        docs=_RECONSTRUCT,
        expect=r"whitespace-only|is empty",
    ),
)
_add(
    ("chonkie-sentence",),
    "cap_respected",
    Finding(
        "documented",
        "a sentence longer than `chunk_size` is kept whole",
        "`SentenceChunker` only groups whole sentences (`_prepare_sentences`, then "
        "`chonkie_core.find_merge_indices`) and forces at least `min_sentences_per_chunk = 1` "
        "sentence into every chunk, so a sentence longer than `chunk_size` (with the character "
        "tokenizer: longer than `chunk_size` characters, whitespace included) becomes one "
        "oversized chunk.",
        "chonkie/chunker/sentence.py, `SentenceChunker.chunk`",
        docs='chonkie documentation, Sentence Chunker: it "splits text into chunks while '
        'preserving complete sentences"; `min_sentences_per_chunk`: "Minimum number of '
        'sentences to include in each chunk" (default 1).',
        expect=r"> max_size",
    ),
)
_add(
    ("chonkie-token",),
    "config_validation",
    Finding(
        "bug",
        "negative `chunk_overlap` is accepted; the windows then skip text and misreport offsets",
        "`TokenChunker.__init__` checks only `chunk_size <= 0` and `chunk_overlap >= chunk_size`, "
        "so a negative `chunk_overlap` is accepted. The window step `chunk_size - chunk_overlap` "
        "then exceeds the window, so the text between windows is in no chunk, and "
        "`_create_chunks` derives the next `start_index` from the decoded length of "
        "`token_group[-chunk_overlap:]`, which for a negative overlap is not the overlap at all, so "
        "chunk texts stop matching their offsets (seen by hand: size 4, overlap -121 reports "
        "`'adin'` at the offsets of `'titl'`). The shrunk counterexample shows the simplest failure "
        "on such a config, the random ids of `deterministic`.",
        "chonkie/chunker/token.py, `TokenChunker.__init__`, `_create_chunks`",
        expect=r"was neither refused",
    ),
)
_add(
    ("chonkie-sentence",),
    "config_validation",
    Finding(
        "design",
        "negative `chunk_overlap` is accepted and treated as no overlap; ids are random",
        "`SentenceChunker.__init__` checks only `chunk_size <= 0` and `chunk_overlap >= "
        "chunk_size`; a negative `chunk_overlap` is accepted and, since the overlap step runs only "
        "`if self.chunk_overlap > 0`, behaves as no overlap. The output then breaks only what it "
        "breaks on valid configs: `deterministic` (random ids) and `cap_respected`.",
        "chonkie/chunker/sentence.py, `SentenceChunker.__init__`, `chunk`",
        expect=r"was neither refused",
    ),
)
_add(
    ("chonkie-recursive",),
    "config_validation",
    Finding(
        "design",
        "no overlap parameter to validate; ids are random on every call",
        "`RecursiveChunker` has no overlap parameter (the adapter ignores `overlap`), so a "
        "degenerate overlap is never refused; the output is then the same as on a valid config "
        "and breaks `deterministic` (random ids) and `non_empty` as described there.",
        "chonkie/chunker/recursive.py, `RecursiveChunker.__init__`",
        expect=r"was neither refused",
    ),
)
_add(
    ("chonkie-token",),
    "terminates",
    Finding(
        "disputed",
        "a timeout seen only when two runs share the two cores",
        "The counterexample (size 89, overlap 88 on a 1,900-character document) takes about 0.08 s "
        "when run on its own; the 2 s timeout was hit only while another adapter's run loaded the "
        "machine. TokenChunker's work is linear in `document length x chunk_size / (chunk_size - "
        "chunk_overlap)`, which is large but bounded for an overlap of `chunk_size - 1`.",
        "chonkie/chunker/token.py, `TokenChunker._token_group_generator`",
        expect=r"no answer within",
    ),
)

_add(
    ("semchunk",),
    "cap_respected",
    Finding(
        "bug",
        "with overlap, merged chunks also span the whitespace removed between sub-chunks",
        "With an overlap, `semchunk.chunk` first chunks the text at `local_chunk_size = "
        "min(overlap, chunk_size - overlap)` and then merges `floor(chunk_size / "
        "local_chunk_size)` consecutive sub-chunks into one chunk by their offsets: "
        "`(suboffsets[start][0], suboffsets[start + subchunks_per_chunk - 1][1])`. The sub-chunks "
        "were stripped of the whitespace that separated them, but the merged span includes it, so "
        "the chunk is longer than `chunk_size` (`'x a'` at size 2, overlap 1: sub-chunks `'x'` "
        "and `'a'`, merged span 3 characters).",
        'semchunk/semchunk.py, `chunk` ("Overlap chunks if desired")',
        docs='semchunk\'s docstring promises "a list of chunks up to `chunk_size`-tokens-long"; '
        "the violation contradicts it.",
        expect=r"> max_size",
    ),
)
_add(
    ("semchunk",),
    "overlap_bounded",
    Finding(
        "bug",
        "overlap is counted in sub-chunks, not in tokens, and the gaps between them add to it",
        "The overlap is realised by stepping `subchunk_stride = floor((chunk_size - overlap) / "
        "local_chunk_size)` sub-chunks at a time through windows of `subchunks_per_chunk` "
        "sub-chunks; consecutive chunks share `subchunks_per_chunk - subchunk_stride` sub-chunks "
        "*and the whitespace between them*, which can exceed `overlap` tokens (`'xx aa'` at size "
        "3, overlap 2: chunks `'xx a'` and `'x aa'` share `'x a'`, 3 characters).",
        'semchunk/semchunk.py, `chunk` ("Overlap chunks if desired")',
        expect=r"> overlap",
    ),
)
_add(
    ("semchunk",),
    "config_validation",
    Finding(
        "bug",
        "`chunk_size <= 0` is never validated (RecursionError, IndexError or a hang); "
        "overlap >= chunk_size is silently clamped",
        'Neither `chunkerify` nor `chunk` validates `chunk_size`: at 0 every character is "over '
        'the chunk size" and `chunk` recurses on it until `RecursionError`; negative sizes give '
        "`IndexError` from the overlap arithmetic or run until killed. An overlap of "
        '`chunk_size` or more is clamped to `chunk_size - 1` ("to prevent ever having an '
        'overlap over the chunk size") and then shows the same cap and overlap defects as on '
        "valid configs.",
        "semchunk/semchunk.py, `chunk`, `chunkerify`",
        expect=r"was neither refused",
    ),
)

_TS = ("text-splitter", "text-splitter-markdown")
_add(
    _TS,
    "config_validation",
    Finding(
        "disputed",
        "a negative overlap is refused with OverflowError, not ValueError/TypeError",
        _TS_OVERFLOW,
        "semantic_text_splitter (PyO3 binding), `TextSplitter.__new__` / "
        "`MarkdownSplitter.__new__`",
        expect=r"OverflowError",
    ),
)
_add(
    _TS,
    "scales_linearly",
    Finding(
        "bug",
        "every chunk re-measures the first sentence/word of the whole remaining text: "
        "quadratic on unbroken runs",
        _TS_QUADRATIC,
        "text-splitter crate (Rust), `src/splitter.rs`, `TextChunks::update_next_sections` and "
        "`MemoizedChunkSizer::find_correct_level`",
        expect=r"time grows faster",
    ),
)
_add(
    _TS,
    "non_empty",
    Finding(
        "disputed",
        "a chunk holding only U+001C..U+001F: whitespace to Python, not to Unicode",
        "The splitter trims chunks with Rust's `str::trim`, which removes Unicode `White_Space` "
        "characters. U+001C..U+001F (the information separators) are not `White_Space`, but "
        "Python's `str.isspace()`, which the contract uses, says they are; so a chunk made of "
        "one of them is kept by the library and reported as whitespace-only by the contract.",
        "text-splitter crate (Rust), `src/trim.rs`, `Trim::trim`",
        expect=r"whitespace-only '\\x1[c-f]",
    ),
)
_add(
    ("text-splitter-markdown",),
    "overlap_bounded",
    Finding(
        "bug",
        "overlap is measured on the trimmed text, but Markdown chunks keep their indentation",
        "`TextChunks::update_cursor` chooses where the next chunk starts by sizing candidate "
        "overlaps with `check_capacity`, which trims each candidate first. The Markdown splitter "
        "trims with `Trim::PreserveIndentation`, which keeps leading spaces only when the text "
        "spans several lines: a one-line candidate such as `'    return 1'` is measured as "
        "`'return 1'` (8 characters, within an overlap of 8), but the emitted chunk spans "
        "several lines and keeps the indentation, so the chunks share 12 characters.",
        "text-splitter crate (Rust), `src/splitter.rs`, `TextChunks::update_cursor`; "
        "`src/trim.rs`, `Trim::PreserveIndentation`",
        expect=r"> overlap",
    ),
)

_add(
    ("langchain-markdown-headers",),
    "heading_boundary",
    Finding(
        "bug",
        "a backtick line with a backtick in its info string is taken for a code fence",
        "`split_text` opens a code block on any line that `startswith(\"```\")` and holds one "
        "`\"```\"`, and closes it on the next line that starts with the same fence. CommonMark "
        "says the info string of a backtick fence may not contain a backtick, so a line such as "
        "`` ```t` `` opens no fence (it is paragraph text); the splitter's code block then swallows "
        "the headings that follow, and they stay inside the preceding chunk.",
        "langchain_text_splitters/markdown.py, `MarkdownHeaderTextSplitter.split_text` "
        "(`in_code_block`)",
        expect=r"holds a heading|holds heading",
    ),
)

_SURROGATES = (
    "A lone surrogate (legal in a Python `str`: `json.loads('\"\\\\ud800\"')`, file names "
    "decoded with `surrogateescape`) makes {what} raise `UnicodeEncodeError: surrogates not "
    "allowed`; the document is neither chunked nor refused with a chunking error. See the "
    "note on lone surrogates below."
)
_add(
    ("chonkie-sentence", "chonkie-recursive"),
    "no_crash",
    Finding(
        "disputed",
        "a lone surrogate raises UnicodeEncodeError (strict UTF-8 encoding of the text)",
        _SURROGATES.format(what='`split_text_by_delimiters`, which encodes the text with '
                                'strict `text.encode("utf-8")` to split it in bytes,'),
        "chonkie/chunker/base.py, `split_text_by_delimiters`",
        expect=r"UnicodeEncodeError.*surrogates not allowed",
    ),
)
_add(
    ("llamaindex-sentence", "llamaindex-markdown"),
    "no_crash",
    Finding(
        "disputed",
        "a lone surrogate raises UnicodeEncodeError (the document hash encodes strictly)",
        _SURROGATES.format(what='the source document\'s hash (`sha256(doc_identity.encode('
                                '"utf-8"))`, computed for every node\'s SOURCE relationship)'),
        "llama_index/core/schema.py, `MediaResource.hash`; node_parser/node_utils.py, "
        "`build_nodes_from_splits`",
        expect=r"UnicodeEncodeError.*surrogates not allowed",
    ),
)
_add(
    _TS,
    "no_crash",
    Finding(
        "disputed",
        "a lone surrogate raises UnicodeEncodeError (Rust strings must be valid UTF-8)",
        _SURROGATES.format(what="the conversion of the document to a Rust `&str` at the "
                                "extension's boundary (PyO3)"),
        "semantic-text-splitter (PyO3 bindings), `chunk_indices` argument conversion",
        expect=r"UnicodeEncodeError.*surrogates not allowed",
    ),
)


#: Observations about an adapter that the run's matrix does not show (found by hand while
#: reviewing), printed under the adapter's section.
ADAPTER_NOTES: dict[str, str] = {
    "langchain-character": (
        'Found by hand, not by the generated examples: `"a\\n\\n\\n\\nb"` with '
        '`chunk_size=10` gives the chunk `"a\\n\\nb"`, which is not in the document: '
        "`_split_text_with_regex` drops the empty piece between two consecutive separators and "
        "`_merge_splits` re-joins the pieces with one separator. Its `start_index` is then -1."
    ),
    "langchain-markdown-headers": (
        "`heading_boundary` is judged only on chunks the contract can place: most chunks are "
        "rewritten text (see `span_fidelity`), and those are skipped. By hand: with "
        '`strip_headers=False`, `"# A\\n## B\\ntext"` gives one chunk `"# A  \\n## '
        'B\\ntext"`: `aggregate_lines_to_chunks` deliberately appends a section to a '
        "preceding heading-only chunk of a shallower level, so a heading is not always at a "
        "chunk's start."
    ),
    "llamaindex-token": (
        "Every chunk is at most `chunk_size - 2` tokens (see `no_crash`): the adapter's "
        "`max_size` is the library's `chunk_size`, and the library reserves two tokens for "
        "metadata formatting even when there is no metadata."
    ),
    "semchunk": (
        "Without an overlap (`overlap=0`) no violation was found: the defects are all in the "
        "overlap path."
    ),
}

#: Paragraphs for the page's last section: where the contract, not a library, is arguable.
CONTRACT_NOTES: list[str] = [
    "- **Lone surrogates are documents too** (SPEC §5 `codepoint_integrity` speaks of lone "
    "surrogates a document holds). A Python `str` may hold one: JSON with a broken emoji "
    "escape (`json.loads` accepts `\"\\\\ud83d\"`), file names decoded with "
    "`surrogateescape`. The seed corpus includes such a document, and the contract reports a "
    "`UnicodeEncodeError` from strict UTF-8 encoding as `no_crash`. A library may fairly require "
    "valid Unicode (Rust strings must be UTF-8), and the error is explicit; what a pipeline "
    "needs to know is that one such document stops the ingestion instead of being chunked or "
    "refused per document. Marked *disputed*.",
    "- **Whitespace is `str.isspace()`** (SPEC §5, `non_empty`, `no_lost_text`). Python counts "
    "U+001C..U+001F as whitespace; Unicode's `White_Space` property, Rust's `char::is_whitespace` "
    "and most non-Python trimmers do not. A splitter that trims by Unicode rules keeps a chunk "
    "`'\\x1d'` and is reported under `non_empty` (minimal repro: `text-splitter`, document "
    "`'\\x85\\x1d'`, `max_size=1`). Marked *disputed*.",
    "- **Refusing a config means ValueError or TypeError** (SPEC §2). Extension modules that "
    "convert arguments to unsigned integers refuse negative values with `OverflowError` "
    "(semantic-text-splitter's `overlap=-1`). The config is refused, clearly, but the contract "
    "reports a `config_validation` violation. Marked *disputed*.",
    "- **`config_validation` repeats valid-config findings.** On a degenerate config the "
    "contract reports any broken invariant, including ones the same plugin breaks on every "
    "valid config (random ids under `deterministic`, a splitter with no size parameter under "
    "`cap_respected`). The shrinker then prefers that simplest failure, so the column says "
    "little about how the degenerate config itself was handled; the explanations above say "
    "what the library does with it.",
    "- **`terminates` counts one-time costs and machine load.** The per-call limit (2 s) is "
    "wall-clock time in a worker forked from the loading process. A library that initialises "
    "lazily on its first call pays that in every fresh worker: LlamaIndex's sentence splitter "
    "loads NLTK data on first use (about 1.5 s, measured 1.8 s under load), which produced a "
    "`terminates` violation on a 17-character document until the adapters learned to warm "
    "up at load time (`Adapter.warm_up`); a third-party plugin with the same habit would be "
    "reported. Likewise, two contract runs sharing a two-core machine produced a timeout for "
    "a call that takes 0.08 s alone (`chonkie-token`, size 89, overlap 88), so `nox -s peers` "
    "runs the adapters one at a time.",
]


# --------------------------------------------------------------------------- LangChain.js
# npm @langchain/textsplitters 1.0.2 (with @langchain/core 1.4.0), run out of process by
# contract/integrations/adapters/js/bridge.mjs; the source read is its dist/text_splitter.js
# (src/text_splitter.ts). The bridge reports bare texts and `loc.lines`, no offsets.

_LCJS_SRC = "@langchain/textsplitters 1.0.2, dist/text_splitter.js"
_LCJS_RECURSIVE = (
    "langchainjs-recursive",
    "langchainjs-markdown",
    "langchainjs-latex",
    "langchainjs-python",
    "langchainjs-js",
)
_LCJS_RAW_SPLIT = (
    "`RecursiveCharacterTextSplitter._splitText` keeps a split only when "
    "`lengthFunction(s) < chunkSize`; a split that is not shorter and has no finer separator "
    "left (`!newSeparators`, i.e. the last separator `\"\"`) is pushed to the output as it is "
    "(`finalChunks.push(s)`), bypassing `mergeSplits`/`joinDocs`, where chunks are trimmed and "
    "empty ones dropped. At `chunkSize=1` every one-character split is such a split, so a space "
    "or a newline becomes a chunk of its own (document `'x a'`, size 1: `'x'`, `' '`, `'a'`). "
    "The Python library has the same code path."
)
_LCJS_SURROGATES = (
    "The last separator `\"\"` splits with `text.split(\"\")`, which cuts a JavaScript string into "
    "UTF-16 code units, not characters: an astral character (emoji, U+1F600) becomes its two "
    "surrogate halves. At a chunk size where one unit is not shorter than `chunkSize` each half "
    "is pushed alone (the raw-split path above), so the output holds lone surrogates "
    "(`'\\U0001f600'`, size 1: `'\\ud83d'`, `'\\ude00'`); at larger sizes `mergeSplits` can still "
    "end a chunk between the halves. The halves are text the document does not hold, so "
    "`span_fidelity` fails with `codepoint_integrity`. This holds whatever `lengthFunction` "
    "counts: the cut is made by `split(\"\")`, not by the measure."
)
_LCJS_TRIM = (
    "`TextSplitter.joinDocs` trims each merged chunk with JavaScript's `String.prototype.trim`, "
    "which strips U+FEFF (ZERO WIDTH NO-BREAK SPACE, the byte-order mark) as white space; "
    "Python's `str.isspace()` (SPEC's whitespace) does not count it, so a document starting "
    "with a BOM loses it (`'\\ufeffab'`, size 2: `'a'`, `'b'`; with CharacterTextSplitter "
    "`'\\ufeff'` alone gives no chunk at all)."
)
_LCJS_LINES = (
    "`createDocuments` reports `loc.lines.to = from + (number of \"\\n\" in the chunk)`; for a "
    "chunk that ends with `\"\\n\"` that is the line after its last character (SPEC §4: the line "
    "holding the last character). Trimmed chunks never end with a newline, but the untrimmed "
    "raw splits above do (`'a\\nb'`, size 1: the chunk `'\\n'` cites lines 1-2, it lies on line "
    "1). The line count itself is kept by `indexOf(chunk, indexPrevChunk + 1)`, which is right "
    "here."
)
_LCJS_OVERLAP = (
    "`mergeSplits` measures splits before `joinDocs` trims them: a chunk measured as `'\\nb'` "
    "(2 units, size 2) is emitted as `'b'`, and the overlap it keeps for the next chunk "
    "(`while (total > chunkOverlap ...) currentDoc.shift()` drops only the `'\\n'`) is the whole "
    "emitted chunk, so the next chunk `'bc'` starts where the previous one did and holds it "
    "whole (`'a\\nbc\\nd'`, size 2, overlap 1: `'a'`, `'b'`, `'bc'`, `'d'`): a duplicated "
    "embedding. The Python library does the same (see langchain-recursive)."
)
_LCJS_VALIDATION = (
    "The `TextSplitter` constructor refuses only `chunkOverlap >= chunkSize` (`throw new "
    "Error(\"Cannot have chunkOverlap >= chunkSize\")`, which the bridge reports as a config "
    "error); a negative `chunkSize` or `chunkOverlap` is accepted. RecursiveCharacterTextSplitter "
    "then splits anyway (every split is `>= chunkSize`, so the raw splits come out, whitespace "
    "included: `'a b'`, size 1, overlap -1 gives `'a'`, `' '`, `'b'`); CharacterTextSplitter "
    "crashes: in `mergeSplits`, `while (total > chunkOverlap || ...)` stays true once "
    "`currentDoc` is empty, and `lengthFunction(currentDoc[0])` is called on `undefined` "
    "(`'a\\n\\nb'`, size 1, overlap -1: a TypeError)."
)
_LCJS_CONTROL = (
    "U+001C..U+001F are whitespace to Python's `str.isspace()` but not to JavaScript's `trim()` "
    "(they are not Unicode White_Space), so a chunk of only `'\\x1d'` survives `joinDocs` "
    "(`'a\\n\\n\\x1d'`, size 1: `'a'`, `'\\x1d'`). See the contract note on `str.isspace()`."
)

_add(_LCJS_RECURSIVE, "non_empty", Finding(
    "bug",
    "a split not shorter than chunkSize at the last separator is emitted untrimmed: "
    "whitespace chunks",
    _LCJS_RAW_SPLIT, f"{_LCJS_SRC}, `RecursiveCharacterTextSplitter._splitText`",
    expect=r"whitespace-only|is empty"))
_add(_LCJS_RECURSIVE, "span_fidelity", Finding(
    "bug", 'split("") cuts astral characters into lone surrogate halves',
    _LCJS_SURROGATES, f"{_LCJS_SRC}, `TextSplitter.splitOnSeparator`",
    expect=r"\\ud[89a-f][0-9a-f]{2}.*occurs nowhere"))
_add(_LCJS_RECURSIVE, "codepoint_integrity", Finding(
    "bug", 'split("") cuts astral characters into lone surrogate halves',
    _LCJS_SURROGATES, f"{_LCJS_SRC}, `TextSplitter.splitOnSeparator`",
    expect=r"lone surrogate"))
_add(_LCJS_RECURSIVE, "no_lost_text", Finding(
    "disputed", "JavaScript's trim() strips U+FEFF, which Python does not count as whitespace",
    _LCJS_TRIM, f"{_LCJS_SRC}, `TextSplitter.joinDocs`", expect=r"'\\ufeff'.*lies in no chunk"))
_add(_LCJS_RECURSIVE, "line_citations", Finding(
    "bug", "loc.lines.to counts a trailing newline as a further line (on untrimmed raw splits)",
    _LCJS_LINES, f"{_LCJS_SRC}, `TextSplitter.createDocuments`", expect=r"cites lines"))
_add(_LCJS_RECURSIVE, "ordered", Finding(
    "bug", "overlap measured before trimming repeats the previous chunk whole",
    _LCJS_OVERLAP, f"{_LCJS_SRC}, `TextSplitter.mergeSplits`, `joinDocs`",
    expect=r"does not occur after|start does not increase|end decreases"))
_add(_LCJS_RECURSIVE, "config_validation", Finding(
    "bug", "negative chunkSize / chunkOverlap are accepted; only overlap >= size is refused",
    _LCJS_VALIDATION, f"{_LCJS_SRC}, `TextSplitter` constructor", expect=r"was neither refused"))

_add(("langchainjs-character",), "cap_respected", Finding(
    "design", 'splits only at "\\n\\n"; a longer paragraph stays one chunk',
    "`CharacterTextSplitter.splitText` splits at its one separator (`\"\\n\\n\"`) and merges; a "
    "split longer than `chunkSize` is kept whole, with a `console.warn(\"Created a chunk of "
    "size ...\")` (the bridge sends it to stderr). `'TITLE\\nAUTHOR\\nDATE'`, size 1: one chunk "
    "of 17 characters. Deliberate in the code (the warning branch); the package's README says "
    "nothing about it, so the verdict is design, not documented.",
    f"{_LCJS_SRC}, `CharacterTextSplitter.splitText`, `TextSplitter.mergeSplits`",
    expect=r"> max_size"))
_add(("langchainjs-character",), "no_lost_text", Finding(
    "disputed", "JavaScript's trim() strips U+FEFF, which Python does not count as whitespace",
    _LCJS_TRIM, f"{_LCJS_SRC}, `TextSplitter.joinDocs`", expect=r"'\\ufeff'.*lies in no chunk"))
_add(("langchainjs-character",), "non_empty", Finding(
    "disputed", "a chunk of U+001C..U+001F: whitespace to Python, not to JavaScript's trim()",
    _LCJS_CONTROL, f"{_LCJS_SRC}, `TextSplitter.joinDocs`",
    expect=r"whitespace-only '\\x1[c-f]"))
_add(("langchainjs-character",), "config_validation", Finding(
    "bug", "a negative chunkOverlap is accepted, then mergeSplits crashes on undefined",
    _LCJS_VALIDATION, f"{_LCJS_SRC}, `TextSplitter` constructor, `mergeSplits`",
    expect=r"was neither refused"))
