"""The pytest plugin and ``contract_tests`` on a third-party project, run as its own pytest."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.gate.conftest import ROOT, run_in

PLUGIN = ("-m", "pytest", "-p", "chunk_contract.pytest.plugin")
#: The bug planted in sample_project/chunker.py: words longer than the cap are dropped.
PLANTED = {"no_lost_text"}


def outcomes(junit: Path, *, by_target: bool = False) -> dict[str, dict[str, str]]:
    """pytest's own JUnit file -> {"plugin" | "api" | "unit": {test name: outcome}}.

    ``by_target``: plugin items keyed by their class name (the target) too, so that two
    targets' items of one invariant do not overwrite each other (in file order, which xdist
    changes)."""
    out: dict[str, dict[str, str]] = {"plugin": {}, "api": {}, "unit": {}}
    for case in ET.parse(junit).getroot().iter("testcase"):
        outcome = "passed"
        for tag in ("failure", "error", "skipped"):
            if case.find(tag) is not None:
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[tag]
        name, classname = case.get("name", ""), case.get("classname", "")
        name = name.split("@")[0]  # xdist's loadgroup appends "@GROUP"
        api = re.fullmatch(r"test_contract\[(\w+)\]", name)
        if classname.startswith("chunk-contract"):
            out["plugin"][f"{classname} {name}" if by_target else name] = outcome
        elif api:
            out["api"][api.group(1)] = outcome
        else:
            out["unit"][name] = outcome
    return out


def test_one_failing_test_per_violated_invariant(sample: Path) -> None:
    done = run_in(sample, *PLUGIN, "-rfs", "--junitxml=pytest.xml")
    assert done.returncode == 1, done.stdout + done.stderr  # tests failed (not 2, 3, 4)
    got = outcomes(sample / "pytest.xml")
    assert got["unit"] == {"test_packs_short_words": "passed"}

    # The same project through the command line: no TARGET, so [tool.chunk-contract] decides.
    cli = run_in(sample, "-m", "chunk_contract", "run", "-q", "--json", "verdicts.json")
    assert cli.returncode == 1, cli.stdout + cli.stderr
    report = json.loads((sample / "verdicts.json").read_text())
    verdicts = {i["id"]: i["status"] for i in report["invariants"]}
    violated = {i for i, status in verdicts.items() if status == "violated"}
    assert violated == PLANTED

    for front, tests in (("plugin", got["plugin"]), ("api", got["api"])):
        failed = {name for name, outcome in tests.items() if outcome == "failed"}
        assert failed == violated, front  # one failing test per violated invariant
        for name, outcome in tests.items():
            expected = {"violated": "failed"}.get(verdicts[name], verdicts[name])
            assert outcome == expected, (front, name)
        # one item per invariant that applies to a text plugin promising nothing
        assert "tight_range" not in tests and "grapheme_integrity" not in tests
        assert {"terminates", "no_lost_text", "cap_respected"} <= set(tests)

    out = done.stdout
    assert "FAILED chunk-contract::chunker.py:split::no_lost_text" in out
    assert "FAILED tests/test_chunker.py::test_contract[no_lost_text]" in out
    # the failure shows the text report of the violation, with its replay command
    assert "lies in no chunk" in out and "Failing input (shrunk" in out
    assert re.search(r"chunk-contract replay \S*no_lost_text-[\w.-]+\.json", out)
    # a waiver shows the reason declared in pyproject.toml, at the plugin's source line
    assert re.search(r"SKIPPED \[1\] chunker\.py:\d+: waived: timed in the nightly job only", out)
    lines = (sample / "tests" / "test_chunker.py").read_text().splitlines()
    line = next(n for n, text in enumerate(lines, 1) if "= contract_tests(" in text)
    assert f"SKIPPED [1] tests/test_chunker.py:{line}: waived: timed in the nightly job only" in out


def test_command_line_targets_and_marker(sample: Path) -> None:
    """``--chunk-contract TARGET`` without the declared ones; ``-m chunk_contract`` selects."""
    (sample / "pyproject.toml").write_text(
        (sample / "pyproject.toml")
        .read_text()
        .replace('addopts = "--chunk-contract-declared ', 'addopts = "')
    )
    target = f"{ROOT / 'tests' / 'gate' / 'plugins.py'}:windows"
    done = run_in(
        sample,
        *PLUGIN,
        "--chunk-contract",
        target,
        "-m",
        "chunk_contract",
        "-v",
        "--chunk-contract-max-examples",
        "25",
        "--chunk-contract-skip",
        "scales_linearly",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"chunk-contract::{target}::cap_respected PASSED" in done.stdout
    assert "test_packs_short_words" not in done.stdout  # deselected by -m
    assert "chunker.py:split" not in done.stdout  # declared targets only with the flag


def test_usage_errors_stop_pytest(tmp_path: Path) -> None:
    done = run_in(tmp_path, *PLUGIN, "--chunk-contract", "missing.py:split")
    assert done.returncode == 4  # pytest's usage error
    assert "chunk-contract: missing.py:split: no such file" in done.stderr
    done = run_in(tmp_path, *PLUGIN, "--chunk-contract-declared")
    assert done.returncode == 4 and "no targets in [tool.chunk-contract]" in done.stderr
    done = run_in(
        tmp_path,
        *PLUGIN,
        "--chunk-contract",
        "missing.py:split",
        "--chunk-contract-only",
        "cap_respectd",
    )
    assert done.returncode == 4 and "unknown invariant id(s) cap_respectd" in done.stderr


def test_plugin_is_inert_and_light_without_options(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text("def test_x():\n    pass\n")
    done = run_in(tmp_path, *PLUGIN, "-q")
    assert done.returncode == 0 and "1 passed" in done.stdout
    probe = (
        "import sys, chunk_contract.pytest.plugin, chunk_contract.pytest; "
        "import chunk_contract.pytest.suite; "
        "print(sorted(m for m in ('hypothesis', 'openpyxl', 'chunk_contract.engine.runner') "
        "if m in sys.modules))"
    )
    done = run_in(tmp_path, "-c", probe)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr


def test_contract_tests_accepts_a_plugin_object(tmp_path: Path) -> None:
    """``contract_tests(plugin_object, ...)``: ids from its kind, settings from the keywords."""
    from types import SimpleNamespace

    import pytest

    from chunk_contract.pytest import contract_tests as reexported
    from chunk_contract.pytest.suite import contract_tests
    from tests.gate import plugins

    assert reexported is contract_tests
    test = contract_tests(
        plugins.windows,
        max_examples=10,
        seed=3,
        only=["cap_respected"],
        skip={"ordered": "not this time"},
        reproducers=tmp_path,
    )
    marks = {m.name: m for m in test.pytestmark}  # type: ignore[attr-defined]
    assert set(marks) == {"parametrize", "xdist_group"}
    mark = marks["parametrize"]
    assert mark.args[0] == "invariant"
    assert "cap_respected" in mark.args[1] and "tight_range" not in mark.args[1]
    request = SimpleNamespace(config=SimpleNamespace(getoption=lambda name, default=None: default))
    test("cap_respected", request)  # passes
    with pytest.raises(pytest.skip.Exception, match="deselected"):
        test("no_lost_text", request)  # not in only=
    with pytest.raises(pytest.UsageError, match="unknown invariant"):
        contract_tests(plugins.windows, skip=["ordred"])


def _workers(stdout: str) -> dict[str, set[str]]:
    """``-v`` output under xdist -> {target: the workers that ran its items}."""
    found: dict[str, set[str]] = {}
    line = r"\[(gw\d+)\](?: \[ *\d+%\])? \w+ (chunk-contract::\S+)"  # "[gw0] [ 3%] PASSED id"
    for worker, nodeid in re.findall(line, stdout):
        target = nodeid.split("@")[0].split("::")[1]
        found.setdefault(target, set()).add(worker)
    return found


def test_xdist_runs_each_target_once_with_the_serial_verdicts(sample: Path) -> None:
    """``pytest -n 2``: same outcomes as the serial run; a target's items share one worker."""
    windows = f"{ROOT / 'tests' / 'gate' / 'plugins.py'}:windows"
    common = ("--chunk-contract", windows, "--chunk-contract-max-examples", "40",
              "--chunk-contract-skip", "scales_linearly")
    serial = run_in(sample, *PLUGIN, *common, "--junitxml=serial.xml")
    assert serial.returncode == 1, serial.stdout + serial.stderr
    parallel = run_in(sample, *PLUGIN, "-p", "xdist.plugin", "-n", "2", "-v", *common,
                      "--junitxml=parallel.xml")
    assert parallel.returncode == 1, parallel.stdout + parallel.stderr
    parallel_outcomes = outcomes(sample / "parallel.xml", by_target=True)
    assert parallel_outcomes == outcomes(sample / "serial.xml", by_target=True)
    workers = _workers(parallel.stdout)
    assert set(workers) == {"chunker.py:split", windows}, parallel.stdout
    assert all(len(ran_on) == 1 for ran_on in workers.values()), workers


def test_xdist_workers_share_a_random_seed(sample: Path) -> None:
    """With ``--dist load`` forced, a target's items spread, yet every worker uses one seed."""
    target = f"{ROOT / 'tests' / 'gate' / 'plugins.py'}:windows"
    done = run_in(sample, *PLUGIN, "-p", "xdist.plugin", "-n", "2", "--dist", "load", "-v",
                  "-m", "chunk_contract", "--chunk-contract", target,
                  "--chunk-contract-profile", "dev",  # random seed (the sample's "ci" fixes it)
                  "--chunk-contract-max-examples", "20", "--chunk-contract-skip", "scales_linearly",
                  "--junitxml=load.xml")
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert len(_workers(done.stdout)[target]) == 2, "items of one target on both workers"
    seeds = {
        prop.get("value")
        for case in ET.parse(sample / "load.xml").getroot().iter("testcase")
        if "plugins.py:windows" in case.get("classname", "")
        for prop in case.iter("property")
        if prop.get("name") == "chunk_contract_seed"
    }
    assert len(seeds) == 1, seeds  # random, yet the same on both workers
