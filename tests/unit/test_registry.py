"""chunk_contract.spec.registry: every SPEC id registered once, stable order, selection errors that
help."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from chunk_contract.spec import registry as reg
from chunk_contract.spec.model import Case, Violation
from chunk_contract.spec.registry import EXTENSION_IDS, SPEC_IDS, get, invariant, registry, select

OPT_IN = {"grapheme_integrity", "heading_boundary", "newline_invariance", "section_path"}
ENGINE = {"terminates", "no_crash", "config_validation", "scales_linearly"}
WORKBOOK = {
    "terminates",
    "no_crash",
    "config_validation",
    "non_empty",
    "cap_respected",
    "unique_ids",
    "deterministic",
    "tiles_parent",
    "tight_range",
    "cells_covered",
}


@pytest.fixture
def scratch() -> Iterator[list[str]]:
    """Ids registered by a test, removed again so the global registry stays as shipped."""
    added: list[str] = []
    yield added
    for name in added:
        reg._REGISTRY.pop(name, None)


def test_every_spec_id_is_registered_exactly_once_in_spec_order() -> None:
    rules = registry()
    assert list(rules)[: len(SPEC_IDS)] == list(SPEC_IDS)
    assert len(SPEC_IDS) == len(set(SPEC_IDS)) == 20
    assert list(rules)[len(SPEC_IDS) :] == list(EXTENSION_IDS) == ["section_path"]
    assert all(rules[i].opt_in for i in EXTENSION_IDS)  # an extension never changes a verdict
    # of a plugin that did not ask for it
    for name, rule in rules.items():
        assert rule.id == name
        assert rule.rule and "\n" not in rule.rule


def test_flags_match_the_spec() -> None:
    rules = registry()
    assert {i for i, r in rules.items() if r.opt_in} == OPT_IN
    assert {i for i, r in rules.items() if r.engine} == ENGINE
    assert {i for i, r in rules.items() if "workbook" in r.kinds} == WORKBOOK
    assert all(
        "text" in r.kinds for i, r in rules.items() if i not in {"tight_range", "cells_covered"}
    )
    assert rules["deterministic"].needs == {"rerun"}
    assert rules["newline_invariance"].needs == {"lf_twin"}


def test_applies_to_kind_and_promises() -> None:
    rules = registry()
    assert rules["heading_boundary"].applies_to("text", ["heading_boundary"])
    assert not rules["heading_boundary"].applies_to("text", [])
    assert not rules["tight_range"].applies_to("text", [])
    assert rules["tight_range"].applies_to("workbook", [])
    assert not rules["no_lost_text"].applies_to("workbook", [])


def test_exercised_by_needs_a_reported_field() -> None:
    from chunk_contract.spec.model import Chunk

    rules = registry()
    plain = [Chunk(index=0, text="x")]
    assert rules["no_lost_text"].exercised_by(plain)  # needs no field
    assert not rules["unique_ids"].exercised_by(plain)
    assert rules["unique_ids"].exercised_by([Chunk(index=0, text="x", id="a")])
    assert rules["line_citations"].exercised_by([Chunk(index=0, text="x", line_end=1)])


def test_duplicate_registration_is_rejected(scratch: list[str]) -> None:
    before = registry()["non_empty"].check

    with pytest.raises(ValueError, match="invariant 'non_empty' is already registered"):

        @invariant("non_empty")
        def again(case: Case) -> Iterator[Violation]:
            """A second non_empty."""
            return iter(())

    assert registry()["non_empty"].check is before

    @invariant("x_scratch_rule")
    def first(case: Case) -> Iterator[Violation]:
        """First."""
        return iter(())

    scratch.append("x_scratch_rule")
    with pytest.raises(ValueError, match="'x_scratch_rule' is already registered"):
        invariant("x_scratch_rule")(first)


def test_a_rule_needs_a_docstring(scratch: list[str]) -> None:
    def nodoc(case: Case) -> Iterator[Violation]:
        return iter(())

    with pytest.raises(ValueError, match="needs a docstring"):
        invariant("x_no_doc")(nodoc)
    assert "x_no_doc" not in registry()


def test_extensions_sort_after_spec_ids(scratch: list[str]) -> None:
    for name in ("x_zeta", "x_alpha"):
        invariant(name)(_documented)
        scratch.append(name)
    assert list(registry())[-2:] == ["x_alpha", "x_zeta"]
    assert registry()["x_alpha"].rule == "An extension rule."


def _documented(case: Case) -> Iterator[Violation]:
    """An extension rule.

    More text that is not the rule line.
    """
    return iter(())


def test_get() -> None:
    assert get("ordered").id == "ordered"
    with pytest.raises(KeyError, match=r"unknown invariant 'orderd'; known: terminates, no_crash"):
        get("orderd")


def test_select() -> None:
    assert select() == [*SPEC_IDS, *EXTENSION_IDS]
    assert select(only=["ordered", "non_empty"]) == ["non_empty", "ordered"]  # report order
    assert select(skip=["terminates"]) == [*SPEC_IDS[1:], *EXTENSION_IDS]
    assert select(only=["ordered"], skip=["ordered"]) == []


def test_select_unknown_ids_list_the_known_ones() -> None:
    with pytest.raises(KeyError) as info:
        select(only=["ordered", "nonsense"], skip=["also_bad"])
    message = str(info.value)
    assert "unknown invariant id(s) nonsense, also_bad" in message
    assert "known: " + ", ".join(SPEC_IDS) in message
