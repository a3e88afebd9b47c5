"""Profiles, ``[tool.chunk-contract]``, ``run`` without TARGET, and failures replayed first."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from chunk_contract.cli.main import main
from chunk_contract.config import profiles
from chunk_contract.config.pyproject import ConfigError, find, load
from chunk_contract.engine.results import stable_seed
from chunk_contract.engine.runner import RunResult, run
from chunk_contract.generation.corpus import CORPUS
from chunk_contract.generation.strategies.schedule import text_schedule
from chunk_contract.spec.model import Config
from chunk_contract.store import reproducers
from tests.gate.conftest import HERE, SAMPLE

BUGGY = f"{SAMPLE / 'chunker.py'}:split"
RARE = f"{HERE / 'plugins.py'}:rare_bug"


def verdicts(result: RunResult) -> dict[str, tuple[str, str]]:
    return {i.id: (i.status, i.reason) for i in result.results}


# ----------------------------------------------------------------------------- profiles


def test_profile_budgets() -> None:
    assert {name: p.max_examples for name, p in profiles.PROFILES.items()} == {
        "quick": 25,
        "dev": 100,
        "ci": 200,
        "nightly": 5000,
    }
    assert profiles.PROFILES["ci"].derandomize and not profiles.PROFILES["dev"].derandomize
    nightly = profiles.build(profiles.get("nightly"))
    assert nightly.max_examples == 5000 and nightly.shrink_seconds > 10 and not nightly.derandomize
    ci = profiles.build(profiles.get("ci"), max_examples=7, reproducers=Path("r"))
    assert (ci.max_examples, ci.derandomize, ci.profile, ci.database) == (7, True, "ci", Path("r"))
    assert profiles.build(None).max_examples == 200  # no profile: the built-in defaults
    assert profiles.build(None, replay_failures=False).database is None


def test_profile_precedence() -> None:
    env = {profiles.ENV_VAR: "nightly"}
    assert profiles.choose("dev", "ci", env).name == "dev"  # explicit flag first
    assert profiles.choose(None, "ci", env).name == "nightly"  # then the environment
    assert profiles.choose(None, "ci", {}).name == "ci"  # then pyproject.toml
    assert profiles.choose(None, None, {}) is None
    with pytest.raises(profiles.ProfileError, match="unknown profile 'fast'"):
        profiles.choose(None, None, {profiles.ENV_VAR: "fast"})


def _budget(
    tmp_path: Path,
    table: str,
    *,
    profile: str | None = None,
    environ: dict[str, str] | None = None,
    **flags: object,
) -> tuple[int, bool]:
    """(max_examples, derandomize) that ``run`` resolves for a project with ``table``."""
    from chunk_contract.cli.run import resolve

    target = f"{HERE / 'plugins.py'}:windows"
    config = load(write(tmp_path, f'targets = ["{target}"]\n{table}'))
    [(_, settings, _)] = resolve(
        target=None, profile=profile, flags=flags, project=config, environ=environ or {}
    )
    return settings.max_examples, settings.derandomize


def test_an_explicit_profile_beats_the_table_budgets(tmp_path: Path) -> None:
    """flag > environment > table > profile > default; a chosen profile is above the table."""
    table = 'profile = "dev"\nmax-examples = 150'
    assert _budget(tmp_path, table) == (150, False)  # the table's own budget over its profile
    assert _budget(tmp_path, table, profile="nightly") == (5000, False)  # --profile nightly
    assert _budget(tmp_path, table, environ={profiles.ENV_VAR: "ci"}) == (200, True)
    assert _budget(tmp_path, table, profile="nightly", max_examples=7) == (7, False)  # flag wins
    assert _budget(tmp_path, "max-examples = 150") == (150, False)
    assert _budget(tmp_path, 'profile = "nightly"') == (5000, False)
    assert _budget(tmp_path, "") == (200, False)  # the built-in default


def test_profile_chosen_on_the_command_line_sets_its_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``run --profile nightly`` through ``main``: the table's max-examples does not win."""
    from chunk_contract.cli import run as project

    write(tmp_path, f'targets = ["{HERE / "plugins.py"}:windows"]\nmax-examples = 150')
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(profiles.ENV_VAR, raising=False)
    seen: list[int] = []

    def record(args: object) -> int:
        seen.extend(settings.max_examples for _, settings, _ in project.plan(args))
        return 0

    monkeypatch.setattr(project, "run_command", record)
    assert main(["run", "-q", "--profile", "nightly"]) == 0
    monkeypatch.setenv(profiles.ENV_VAR, "nightly")
    assert main(["run", "-q"]) == 0
    assert seen == [5000, 5000]


def test_ci_profile_gives_the_same_verdicts_twice(tmp_path: Path) -> None:
    """Derandomized: the seed comes from the target, so two runs see the same examples."""
    runs = []
    for name in ("first", "second"):
        settings = profiles.build(
            profiles.get("ci"),
            max_examples=50,
            reproducers=tmp_path / name,
            skip=("scales_linearly",),
            replay_failures=False,
        )
        runs.append(run(BUGGY, settings))
    first, second = runs
    assert first.seed == second.seed == stable_seed(BUGGY)
    assert first.examples == second.examples
    assert verdicts(first) == verdicts(second)
    assert {i.id for i in first.violated} == {"no_lost_text"}
    docs = [
        [
            (i.id, i.counterexample.document, i.counterexample.config)
            for i in r.violated
            if i.counterexample
        ]
        for r in runs
    ]
    assert docs[0] == docs[1]


# ----------------------------------------------------------------------------- the table


def write(folder: Path, table: str) -> Path:
    path = folder / "pyproject.toml"
    path.write_text(f"[project]\nname = 'x'\n\n[tool.chunk-contract]\n{table}\n", encoding="utf-8")
    return path


def test_table_is_parsed(tmp_path: Path) -> None:
    config = load(
        write(
            tmp_path,
            """
targets = ["a.py:split", {target = "b.py:split", max-examples = 5, skip = ["ordered"]}]
profile = "nightly"
max_examples = 300
timeout = 3
skip = { heading_boundary = "we emit nested headings", scales_linearly = "nightly only" }
reproducers = "out/repro"
""",
        )
    )
    assert [e.target for e in config.targets] == ["a.py:split", "b.py:split"]
    assert config.profile == "nightly" and config.budgets == {"max_examples": 300, "timeout": 3.0}
    assert config.reproducers == tmp_path / "out" / "repro"
    b = config.entry("b.py:split")
    assert config.skip_reasons(b)["ordered"] == "waived in [tool.chunk-contract] (no reason given)"
    assert config.skip_reasons(b)["heading_boundary"] == "we emit nested headings"
    settings = config.settings(b, profiles.get("dev"), overrides={"seed": 3, "max_examples": None})
    assert settings.max_examples == 5 and settings.seed == 3 and settings.timeout == 3.0
    assert set(settings.waived) == {"ordered", "heading_boundary", "scales_linearly"}
    assert settings.waived["heading_boundary"] == "we emit nested headings"  # reasons kept
    assert settings.database == tmp_path / "out" / "repro"  # failures replay from there
    assert config.settings(config.entry("a.py:split"), None).max_examples == 300
    (tmp_path / "sub").mkdir()
    assert find(tmp_path / "sub").path == tmp_path / "pyproject.toml"  # found from below


def test_corpus_switch_in_the_table_and_on_the_command_line(tmp_path: Path) -> None:
    config = load(write(tmp_path, 'targets = ["a.py:f", {target = "b.py:f", corpus = true}]\n'
                                  "corpus = false\n"))
    assert config.settings(config.entry("a.py:f"), None).corpus is False
    assert config.settings(config.entry("b.py:f"), None).corpus is True  # the entry wins
    assert load(write(tmp_path, 'targets = ["a.py:f"]\n')).settings(
        config.entry("a.py:f"), None
    ).corpus is True  # the default
    flagged = config.settings(config.entry("b.py:f"), None, overrides={"corpus": False})
    assert flagged.corpus is False  # --no-corpus beats the table


def test_schedule_switch_in_the_table_and_on_the_command_line(tmp_path: Path) -> None:
    config = load(write(tmp_path, 'targets = ["a.py:f", {target = "b.py:f", schedule = true}]\n'
                                  "schedule = false\n"))
    assert config.settings(config.entry("a.py:f"), None).schedule is False
    assert config.settings(config.entry("b.py:f"), None).schedule is True  # the entry wins
    assert load(write(tmp_path, 'targets = ["a.py:f"]\n')).settings(
        config.entry("a.py:f"), None
    ).schedule is True  # the default
    flagged = config.settings(config.entry("b.py:f"), None, overrides={"schedule": False})
    assert flagged.schedule is False  # --no-schedule beats the table
    from chunk_contract.cli.main import build_parser
    from chunk_contract.cli.run import settings_overrides

    args = build_parser().parse_args(["run", "a.py:f", "--no-schedule"])
    assert settings_overrides(args)["schedule"] is False


@pytest.mark.parametrize(
    "table, says",
    [
        ("targetz = ['a.py:f']", "unknown key 'targetz'"),
        ("max-examples = 0", "max-examples must be a positive integer"),
        ("timeout = 'soon'", "timeout must be a positive number"),
        ("skip = { ordred = 'typo' }", "unknown invariant id(s) ordred"),
        ("skip = { ordered = '' }", "skip.ordered must be a reason"),
        ("profile = 'fast'", "unknown profile 'fast'"),
        ("targets = [{skip = ['ordered']}]", "needs a 'target' key"),
        ("targets = 'a.py:f'", "targets must be a list"),
        ("corpus = 'no'", "corpus must be true or false"),
        ("schedule = 1", "schedule must be true or false"),
    ],
)
def test_bad_tables_are_usage_errors(tmp_path: Path, table: str, says: str) -> None:
    path = write(tmp_path, table)
    with pytest.raises(ConfigError) as caught:
        load(path)
    assert says in str(caught.value) and str(path) in str(caught.value)


# ----------------------------------------------------------------------------- the command line


def test_run_without_target_runs_what_the_project_declared(
    sample: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (sample / "plugins.py").write_text((HERE / "plugins.py").read_text())
    text = (
        (sample / "pyproject.toml")
        .read_text()
        .replace(
            'targets = ["chunker.py:split"]', 'targets = ["chunker.py:split", "plugins.py:windows"]'
        )
    )
    (sample / "pyproject.toml").write_text(text)
    monkeypatch.chdir(sample)
    monkeypatch.delenv(profiles.ENV_VAR, raising=False)
    code = main(
        [
            "run",
            "-q",
            "--max-examples",
            "30",
            "--json",
            "r.json",
            "--junit",
            "r.xml",
            "--sarif",
            "r.sarif",
            "--markdown",
            "r.md",
        ]
    )
    assert code == 1
    out = capsys.readouterr().out
    assert "chunk-contract · chunker.py:split" in out
    assert "chunk-contract · plugins.py:windows" in out
    reports = {p.name: json.loads(p.read_text()) for p in sample.glob("r.*.json")}
    assert set(reports) == {"r.chunker.json", "r.plugins-windows.json"}
    buggy = {i["id"]: i for i in reports["r.chunker.json"]["invariants"]}
    assert buggy["no_lost_text"]["status"] == "violated"
    assert buggy["scales_linearly"]["reason"] == "waived: timed in the nightly job only"
    assert buggy["scales_linearly"]["waiver"]["reason"] == "timed in the nightly job only"
    assert reports["r.chunker.json"]["seed"] == stable_seed("chunker.py:split")  # ci
    # the flag beats the table's 60 (the seed corpus and the covering schedule are played on
    # top, and counted)
    played = len(CORPUS) + len(text_schedule().cases)
    assert reports["r.chunker.json"]["examples"] == 30 + played
    assert reports["r.plugins-windows.json"]["passed"] is True
    suites = ET.parse(sample / "r.xml").getroot().findall("testsuite")
    assert len(suites) == 2
    sarif = json.loads((sample / "r.sarif").read_text())
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["no_lost_text"]
    assert (sample / "r.md").read_text().count("| invariant | verdict | details |") == 2


def test_profile_flag_and_environment(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(sample)
    monkeypatch.setenv(profiles.ENV_VAR, "dev")
    assert (
        main(["run", "-q", "--sarif", "r.sarif", "--only", "no_lost_text", "--max-examples", "20"])
        == 1
    )
    sarif = json.loads((sample / "r.sarif").read_text())
    assert sarif["runs"][0]["invocations"][0]["properties"]["targets"][0]["profile"] == "dev"
    assert (
        main(
            [
                "run",
                "-q",
                "--profile",
                "ci",
                "--sarif",
                "r.sarif",
                "--only",
                "no_lost_text",
                "--max-examples",
                "20",
            ]
        )
        == 1
    )
    sarif = json.loads((sample / "r.sarif").read_text())
    assert sarif["runs"][0]["invocations"][0]["properties"]["targets"][0]["profile"] == "ci"
    monkeypatch.setenv(profiles.ENV_VAR, "bogus")
    assert main(["run", "-q"]) == 2


def test_run_without_target_or_table_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".git").mkdir()  # the search for pyproject.toml stops at the checkout
    monkeypatch.chdir(tmp_path)
    assert main(["run", "-q"]) == 2
    assert "no TARGET given and no targets declared" in capsys.readouterr().err
    write(tmp_path, "targetz = []")
    assert main(["run", "-q"]) == 2
    err = capsys.readouterr().err
    assert "unknown key 'targetz'" in err and len(err.strip().splitlines()) == 1


# ----------------------------------------------------------------------------- replay first


def test_a_saved_failure_is_replayed_before_exploring(tmp_path: Path) -> None:
    """A bug the seeded search never meets is found at once from the reproducer folder."""
    folder = tmp_path / "repro"
    base = dict(max_examples=15, seed=1, reproducers=folder, only=("no_lost_text",))
    assert run(RARE, profiles.build(None, **base)).passed  # the search alone misses it
    reproducers.save(
        reproducers.Reproducer(
            target=RARE,
            invariant="no_lost_text",
            document="ab \u2603\u2603\u2603 cd",
            config=Config(4, 0),
            message="saved by an earlier run",
        ),
        folder,
    )
    found = run(RARE, profiles.build(None, **base))
    assert [i.id for i in found.violated] == ["no_lost_text"]
    assert "\u2603\u2603\u2603" in found.violated[0].counterexample.document
    again = run(RARE, profiles.build(None, replay_failures=False, **base))
    assert again.passed  # the database, and only it, found the bug
