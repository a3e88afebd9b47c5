"""The reviewed findings as data (chunk_contract/integrations/adapters/findings/*.toml): the schema
is enforced on load, each broken rule is a clear error naming file and entry, and the shipped files
load."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chunk_contract.errors import UsageError
from chunk_contract.integrations.adapters import findings
from chunk_contract.integrations.adapters.findings import (
    ARBITRARY_MESSAGES,
    FindingsError,
    load,
    notes,
)

KNOWN = {"adapters": {"a-one", "a-two"}, "invariants": {"non_empty", "ordered"}}

CAUSE = '''
[causes.shared]
text = """the shared cause"""
'''

GOOD = '''
[[finding]]
adapters = ["a-one", "a-two"]
invariant = "non_empty"
verdict = "bug"
summary = "whitespace chunks"
cause = "shared"
where = "lib.py, f"
expect = 'is whitespace-only'

[[finding]]
adapters = ["a-one"]
invariant = "ordered"
verdict = "documented"
summary = "repeats"
explanation = """its own paragraph"""
where = "lib.py, g"
docs = "the docs say so"
expect = 'start does not increase'
'''


def write(folder: Path, name: str, text: str) -> Path:
    """Write one findings file (and an empty notes file) into ``folder``."""
    (folder / name).write_text(text, encoding="utf-8")
    if not (folder / "notes.toml").exists():
        (folder / "notes.toml").write_text("contract = []\n", encoding="utf-8")
    return folder


def test_a_valid_file_loads_with_its_shared_cause(tmp_path: Path) -> None:
    found = load(write(tmp_path, "lib.toml", CAUSE + GOOD), **KNOWN)
    assert set(found) == {("a-one", "non_empty"), ("a-two", "non_empty"), ("a-one", "ordered")}
    shared = found[("a-one", "non_empty")]
    assert shared is found[("a-two", "non_empty")]
    assert shared.explanation == "the shared cause" and shared.cause == "shared"
    assert shared.source == "lib.toml, finding 1"
    assert found[("a-one", "ordered")].explanation == "its own paragraph"
    assert shared.matches("chunk[0] [0:1) is whitespace-only ' '")
    assert not shared.matches("chunk[0] [0:3) is 3 chars > max_size 2")


def test_diagnoses_are_the_shared_causes_then_the_findings_own(tmp_path: Path) -> None:
    """The patterns that describe a finding's cause: its shared cause's, then its own; none by
    default (no pattern describes the cause)."""
    text = (CAUSE.replace('"""the shared cause"""',
                          '"""the shared cause"""\ndiagnoses = ["offsets_from_find"]')
            + GOOD.replace("expect = 'is whitespace-only'",
                           "expect = 'is whitespace-only'\ndiagnoses = [\"overlap_on_top\"]"))
    found = load(write(tmp_path, "lib.toml", text), **KNOWN)
    assert found[("a-one", "non_empty")].diagnoses == ("offsets_from_find", "overlap_on_top")
    assert found[("a-one", "ordered")].diagnoses == ()


#: (what is broken, the edit of the valid file, what the error must say).
BROKEN = [
    (
        "unknown key",
        ('where = "lib.py, f"', 'where = "lib.py, f"\npriority = "high"'),
        r"lib\.toml, finding 1: unknown key\(s\) priority",
    ),
    (
        "unknown severity",
        ('where = "lib.py, f"', 'where = "lib.py, f"\nseverity = "high"'),
        r"lib\.toml, finding 1: unknown severity 'high'; use one of abort, unbounded",
    ),
    (
        "unknown top-level key",
        ("[causes.shared]", 'title = "x"\n[causes.shared]'),
        r"lib\.toml: unknown key\(s\) title",
    ),
    (
        "unknown verdict",
        ('verdict = "bug"', 'verdict = "wontfix"'),
        r"lib\.toml, finding 1: unknown verdict 'wontfix'; use one of bug, documented",
    ),
    (
        "unknown cause",
        ('cause = "shared"', 'cause = "nope"'),
        r"finding 1: unknown cause 'nope'; named causes: shared",
    ),
    (
        "unknown invariant",
        ('invariant = "non_empty"', 'invariant = "non_empty_chunks"'),
        r"finding 1: unknown invariant id 'non_empty_chunks'",
    ),
    (
        "adapter not in the catalogue",
        ('adapters = ["a-one", "a-two"]', 'adapters = ["a-three"]'),
        r"finding 1: adapter 'a-three' is not in the catalogue",
    ),
    (
        "bad regex",
        ("expect = 'is whitespace-only'", "expect = 'is (whitespace'"),
        r"finding 1: expect 'is \(whitespace' is not a valid regex",
    ),
    (
        "regex matching anything",
        ("expect = 'is whitespace-only'", "expect = 'x|whitespace'"),
        r"finding 1: expect 'x\|whitespace' matches the arbitrary message 'x'",
    ),
    (
        "regex matching the empty message",
        ("expect = 'is whitespace-only'", "expect = '.*'"),
        r"matches the arbitrary message ''",
    ),
    (
        "cause and explanation both",
        ('cause = "shared"', 'cause = "shared"\nexplanation = "e"'),
        r"finding 1: give exactly one of cause",
    ),
    (
        "neither cause nor explanation",
        ('cause = "shared"\n', ""),
        r"finding 1: give exactly one of cause",
    ),
    (
        "documented without docs",
        ('docs = "the docs say so"\n', ""),
        r"finding 2: a 'documented' finding needs docs",
    ),
    ("missing key", ('summary = "repeats"\n', ""), r"finding 2: missing key\(s\) summary"),
    (
        "empty adapters",
        ('adapters = ["a-one"]\n', "adapters = []\n"),
        r"finding 2: adapters must be a non-empty list",
    ),
    (
        "unknown diagnosis pattern",
        ('expect = \'start does not increase\'', 'expect = \'start does not increase\'\n'
         'diagnoses = ["offsets_by_guess"]'),
        r"lib\.toml, finding 2: unknown diagnosis pattern\(s\) offsets_by_guess",
    ),
    (
        "diagnoses not a list",
        ('text = """the shared cause"""', 'text = """the shared cause"""\n'
         'diagnoses = "offsets_from_find"'),
        r"lib\.toml, \[causes\.shared\]: diagnoses must be an array of pattern ids",
    ),
    (
        "duplicate pair",
        (
            'adapters = ["a-one"]\ninvariant = "ordered"',
            'adapters = ["a-two"]\ninvariant = "non_empty"',
        ),
        r"lib\.toml, finding 2: \(a-two, non_empty\) is already explained by lib\.toml, finding 1",
    ),
]


@pytest.mark.parametrize(("what", "edit", "error"), BROKEN, ids=[b[0] for b in BROKEN])
def test_each_broken_rule_is_a_clear_error(
    tmp_path: Path, what: str, edit: tuple[str, str], error: str
) -> None:
    text = CAUSE + GOOD
    assert edit[0] in text, what
    with pytest.raises(FindingsError, match=error) as caught:
        load(write(tmp_path, "lib.toml", text.replace(edit[0], edit[1], 1)), **KNOWN)
    assert isinstance(caught.value, UsageError) and "\n" not in str(caught.value)


def test_a_cause_named_in_two_files_is_an_error(tmp_path: Path) -> None:
    write(tmp_path, "one.toml", CAUSE + GOOD)
    write(tmp_path, "two.toml", CAUSE)
    with pytest.raises(
        FindingsError,
        match=r"two\.toml, \[causes\.shared\]: cause 'shared' is "
        r"already named in one\.toml",
    ):
        load(tmp_path, **KNOWN)


def test_an_unused_cause_is_an_error(tmp_path: Path) -> None:
    extra = '[causes.dead]\ntext = "never used"\n'
    with pytest.raises(FindingsError, match=r"cause\(s\) dead are named but no finding uses"):
        load(write(tmp_path, "lib.toml", extra + CAUSE + GOOD), **KNOWN)


def test_a_file_that_is_not_toml_is_named(tmp_path: Path) -> None:
    with pytest.raises(FindingsError, match=r"lib\.toml: cannot read the findings"):
        load(write(tmp_path, "lib.toml", "[[finding]\n"), **KNOWN)


def test_every_toml_file_is_read_so_a_new_library_is_a_new_file(tmp_path: Path) -> None:
    write(tmp_path, "one.toml", CAUSE + GOOD)
    write(
        tmp_path,
        "two.toml",
        GOOD.split("[[finding]]")[2]
        .join(["[[finding]]", ""])
        .replace('adapters = ["a-one"]', 'adapters = ["a-two"]'),
    )
    found = load(tmp_path, **KNOWN)
    assert found[("a-two", "ordered")].source == "two.toml, finding 1"
    assert len(found) == 4


def test_notes_are_validated(tmp_path: Path) -> None:
    (tmp_path / "notes.toml").write_text(
        'contract = ["one note"]\n[adapters]\na-one = "seen by hand"\n', encoding="utf-8"
    )
    found = notes(tmp_path, adapters={"a-one"})
    assert found.adapters == {"a-one": "seen by hand"} and found.contract == ("one note",)
    (tmp_path / "notes.toml").write_text('[adapters]\na-nine = "x"\n', encoding="utf-8")
    with pytest.raises(FindingsError, match=r"notes\.toml, \[adapters\]: adapter 'a-nine'"):
        notes(tmp_path, adapters={"a-one"})
    (tmp_path / "notes.toml").write_text('run = """how"""\n', encoding="utf-8")
    assert notes(tmp_path, adapters={"a-one"}).run == "how"
    (tmp_path / "notes.toml").write_text("run = 5\n", encoding="utf-8")
    with pytest.raises(FindingsError, match=r"notes\.toml, run: must be a string"):
        notes(tmp_path, adapters={"a-one"})
    (tmp_path / "notes.toml").write_text("extra = 1\n", encoding="utf-8")
    with pytest.raises(FindingsError, match=r"notes\.toml: unknown key\(s\) extra"):
        notes(tmp_path, adapters={"a-one"})


def entry(k: int, **changes: str) -> str:
    """Finding ``k`` (1 or 2) of the valid file, with keys changed or added."""
    text = "[[finding]]" + GOOD.split("[[finding]]")[k]
    for key, value in changes.items():
        line = f"{key} = {value}\n"
        text = re.sub(rf"^{key} = .*\n", line, text, flags=re.M) if f"\n{key} =" in text else (
            text.replace("\nexpect =", f"\n{line}expect =")
        )
    return text


def test_one_cause_with_two_verdicts_is_a_problem_naming_every_row(tmp_path: Path) -> None:
    first = entry(1, adapters='["a-two"]')
    second = entry(1, adapters='["a-one"]', invariant='"ordered"', verdict='"design"')
    found = load(write(tmp_path, "lib.toml", CAUSE + first + second), **KNOWN)
    conflicts = findings.verdict_conflicts(found)
    assert set(conflicts) == {("a-two", "non_empty"), ("a-one", "ordered")}
    text = conflicts[("a-one", "ordered")]
    assert "ONE CAUSE, SEVERAL VERDICTS: cause 'shared'" in text
    assert "bug in a-two / non_empty (lib.toml, finding 1)" in text
    assert "design in a-one / ordered (lib.toml, finding 2)" in text


def test_the_same_where_of_one_invariant_is_one_cause(tmp_path: Path) -> None:
    """Two findings of one invariant at the same place (backticks and case aside) are one
    cause; the same place under another invariant may be a different behaviour."""
    own = entry(2, where='"lib.py, `G`."')
    other_rule = entry(2, adapters='["a-two"]', invariant='"non_empty"', verdict='"bug"')
    found = load(write(tmp_path, "lib.toml", own + other_rule), **KNOWN)
    assert findings.verdict_conflicts(found) == {}
    same_rule = entry(2, adapters='["a-two"]', verdict='"bug"')
    (tmp_path / "lib.toml").write_text(own + same_rule, encoding="utf-8")
    conflicts = findings.verdict_conflicts(load(tmp_path, **KNOWN))
    assert set(conflicts) == {("a-one", "ordered"), ("a-two", "ordered")}
    assert "the same where (ordered @ lib.py, g)" in conflicts[("a-two", "ordered")]


@pytest.mark.parametrize("verdict", ["design", "disputed"])
def test_an_abort_labelled_design_or_disputed_is_a_problem(tmp_path: Path, verdict: str) -> None:
    severe = entry(1, verdict=f'"{verdict}"', severity='"abort"')
    found = load(write(tmp_path, "lib.toml", CAUSE + severe), **KNOWN)
    problems = findings.severity_conflicts(found)
    assert set(problems) == {("a-one", "non_empty"), ("a-two", "non_empty")}
    assert "severity = 'abort'" in problems[("a-one", "non_empty")]
    assert f"labelled {verdict!r}" in problems[("a-one", "non_empty")]
    assert findings.label_problems(found).keys() == problems.keys()


def test_a_finding_by_hand_keeps_its_direct_call(tmp_path: Path) -> None:
    text = CAUSE + entry(1) + entry(2, by_hand='"lib.split(\'ab\') gives [\'b\', \'a\']"')
    found = load(write(tmp_path, "lib.toml", text), **KNOWN)
    assert found[("a-one", "ordered")].by_hand == "lib.split('ab') gives ['b', 'a']"


def test_an_abort_labelled_bug_or_documented_is_no_problem(tmp_path: Path) -> None:
    text = CAUSE + entry(1, severity='"abort"') + entry(2, severity='"unbounded"')
    found = load(write(tmp_path, "lib.toml", text), **KNOWN)
    assert found[("a-one", "ordered")].severity == "unbounded"
    assert found[("a-one", "ordered")].by_hand == ""
    assert found[("a-one", "non_empty")].severity == "abort"
    assert findings.severity_conflicts(found) == {}


# --------------------------------------------------------------------------- the shipped files


def test_the_shipped_findings_and_notes_load() -> None:
    found = findings.load()
    assert len(found) >= 90
    assert findings.notes().contract


def test_no_shipped_expect_matches_an_arbitrary_message() -> None:
    for (name, rule), finding in findings.load().items():
        loose = [m for m in ARBITRARY_MESSAGES if re.search(finding.expect, m, re.S)]
        assert not loose, (name, rule, finding.expect)


def test_one_cause_has_one_verdict_in_the_shipped_findings() -> None:
    """The same behaviour (a cause id, or one invariant's where) is never a bug in one row and
    documented or by design in another."""
    assert findings.verdict_conflicts(findings.load()) == {}


def test_no_shipped_finding_plays_down_an_abort_or_unbounded_growth() -> None:
    found = findings.load()
    assert findings.severity_conflicts(found) == {}
    severe = {key: f.verdict for key, f in found.items() if f.severity}
    assert ("chonkie-fast", "config_validation") in severe
    assert set(severe.values()) <= set(findings.SEVERE_VERDICTS)


def test_langchain_overlap_equal_to_size_is_one_finding_for_every_splitter() -> None:
    found = findings.load()
    names = (
        "langchain-recursive",
        "langchain-character",
        "langchain-markdown",
        "langchain-python",
        "langchain-markdown-language",
        "langchain-latex",
    )
    shared = {id(found[(n, "config_validation")]) for n in names}
    assert len(shared) == 1
    assert found[(names[0], "config_validation")].cause == "lc-overlap-equal"
