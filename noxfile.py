"""Developer and user jobs: ``nox -s contract`` (the main job), ``nox -s tests`` (the fast
suite), ``nox -s slow`` (the heavy tests, every extra installed), ``nox -s docs`` (the site) and
``nox -s package`` (build, install the wheel elsewhere, run it). CI (.ci/run) runs package,
docs, tests and slow."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import nox

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.sessions = ["tests", "contract"]
nox.options.reuse_existing_virtualenvs = True

#: Every reference chunker, as chunk-contract targets.
REFERENCE_CHUNKERS = [
    "chunk_contract_reference/fixed.py:split",
    "chunk_contract_reference/recursive.py:split",
    "chunk_contract_reference/markdown.py:split",
    "chunk_contract_reference/header.py:split",
    "chunk_contract_reference/header.py:split_duplicate_headers",
    "chunk_contract_reference/grapheme.py:split",
    "chunk_contract_reference/spreadsheet.py:split",
]


#: Offline after the install: the adapters and their tokenizers must never download.
#: The checkout (the sessions run from it).
ROOT = Path(__file__).resolve().parent
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}

#: pytest's progress: one line per test file with its percentage, a summary of every skip and
#: failure (-ra), and the slowest tests, so a test that grows slow is seen.
PROGRESS = ["-ra", "--durations=15"]


#: The fast suite runs on 2 xdist workers, one per core of the 2-core target machine: much of
#: its wall time is waiting (timeouts that a hang test must wait out, worker and interpreter
#: start-ups), which a second worker overlaps. xdist's default ``--dist load`` balances best:
#: under ``loadfile`` tests/defects (a run per test, about a third of the suite's CPU) would be
#: one worker's serial tail. The few module fixtures (tests/gate's two report runs, the Rust
#: build) run once per worker that needs them; tests/defects computes each run in the worker
#: that runs its test (no prefetch pool under xdist). No verdict depends on the load this adds:
#: the suite was run on a busy machine (README, "Running the tests"). ``-- -n 0``: one process.
XDIST = ["-n", "2"]


@nox.session
def tests(session: nox.Session) -> None:
    """The contributor's suite: every test but the slow ones (see tests/conftest.py)."""
    session.install("-e", ".[dev]")
    session.run("pytest", "-m", "not slow", *XDIST, *PROGRESS, *session.posargs)


@nox.session
def slow(session: nox.Session) -> None:
    """The slow tests with every extra they need: adapters (peers), fuzzing (fuzz, atheris),
    mutation (mutmut), the Redis database, scaling probes, parallel and long runs."""
    session.install("-e", ".[dev,fuzz,mutation,redis,tokenizers]", *PEERS)
    session.env.update(OFFLINE)
    session.run("pytest", "-m", "slow", *PROGRESS, *session.posargs)


#: What ``nox -s package`` checks an installed wheel ships (package data included).
SHIPPED = """
from importlib import resources
for package, name in [("chunk_contract", "py.typed"), ("chunk_contract_reference", "py.typed"),
                      ("chunk_contract.integrations.mutation", "vendor/mutation-test-elements.js"),
                      ("chunk_contract_reference", "fixed.py")]:
    assert resources.files(package).joinpath(name).is_file(), (package, name)
import chunk_contract
assert "site-packages" in chunk_contract.__file__, chunk_contract.__file__
print("shipped:", chunk_contract.__file__, chunk_contract.SPEC_VERSION)
"""


@nox.session
def package(session: nox.Session) -> None:
    """Build the sdist and the wheel (the wheel from the sdist), install the wheel into a fresh
    virtual environment outside the checkout, and run the contract from there (the folder is
    removed afterwards, whatever happened)."""
    session.install("build")
    with tempfile.TemporaryDirectory(prefix="chunk-contract-package-") as folder:
        _try_the_wheel(session, Path(folder))


def _try_the_wheel(session: nox.Session, outside: Path) -> None:
    dist = outside / "dist"
    session.run("python", "-m", "build", "--outdir", str(dist), ".")
    wheel = next(dist.glob("chunk_contract-*.whl"))
    venv = outside / "venv"
    session.run("python", "-m", "venv", str(venv))
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    session.run(str(bin_dir / "python"), "-m", "pip", "install", "--quiet", str(wheel),
                external=True)
    with session.chdir(outside):
        session.run(str(bin_dir / "python"), "-c", SHIPPED, external=True)
        session.run(str(bin_dir / "chunk-contract"), "list", external=True)
        session.run(str(bin_dir / "chunk-contract"), "run", "chunk_contract_reference.fixed:split",
                    "--max-examples", "30", "--seed", "1", "-q", external=True)


@nox.session
def contract(session: nox.Session) -> None:
    """Run the contract over every reference chunker and print one table."""
    session.install("-e", ".")
    targets = session.posargs or REFERENCE_CHUNKERS
    session.run("chunk-contract", "matrix", *targets)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff and mypy."""
    session.install("-e", ".[dev]")
    session.run("ruff", "check", "chunk_contract", "chunk_contract_reference", "tests", "fuzz",
                "bench",
                "scripts")
    session.run("mypy")


@nox.session
def docs(session: nox.Session) -> None:
    """The documentation site (mkdocs.yml) built into site/ with every warning an error (a broken
    link or anchor fails), after checking the generated reference pages against the code."""
    session.install("-e", ".[docs]")
    session.run("python", "scripts/gen_reference.py", "--check")
    session.run("mkdocs", "build", "--strict", "--clean")


@nox.session
def bench(session: nox.Session) -> None:
    """Benchmarks: ``nox -s bench [-- --seeds N --only a,b]`` records every ratio in one run.

    bench/bench_core.py (isolation cost, checks vs chunking on 1 and 10 MB, placement on 10 MB,
    -n 2 vs -n 1) rewrites bench/RESULTS-core.md; bench/bench_detection.py (each defective
    chunker through ``chunk-contract run`` as a user's CI runs it: a subprocess in a fresh
    folder, the default budget, one run per seed) rewrites the Detection section of
    bench/RESULTS.md from its run log. Its default, every defect on 20 seeds, takes hours on 2
    cores: pass ``-- --seeds N --only ...`` for a slice (``--skip-logged`` resumes).
    """
    session.install("-e", ".")
    session.run("python", "bench/bench_core.py")
    session.run("python", "bench/bench_detection.py", *session.posargs)


@nox.session
def campaign(session: nox.Session) -> None:
    """A HypoFuzz campaign: ``nox -s campaign -- TARGET [--seconds N] [-n N] [--database SPEC]``.

    Fuzzes TARGET's property test (chunk_contract.integrations.campaign.hypofuzz) with HypoFuzz for
    ``--seconds`` (default 600) on every core, then lists what it found as reproducers and fails if
    it found anything. Machines that pass the same ``--database redis://HOST:PORT/N`` fuzz as one
    campaign.
    """
    if not session.posargs or session.posargs[0].startswith("-"):
        session.error("give a target: nox -s campaign -- path/to/chunker.py:split [--seconds N]")
    session.install("-e", ".[campaign]")
    session.run("chunk-contract", "campaign", *session.posargs)


@nox.session
def fuzz(session: nox.Session) -> None:
    """Fuzzing: ``nox -s fuzz -- [TARGET] [--seconds N] [flags]`` (``chunk-contract fuzz``).

    Fuzzes TARGET (default: every text reference chunker in turn, and the JavaScript one when
    node is there) for ``--seconds`` each (default 60): Python chunkers with atheris (libFuzzer,
    coverage-guided, every limit set), ``exec:`` targets with the blind engine (no coverage
    feedback from another language). Prints progress and a summary, writes a reproducer for
    each finding, and fails if anything was found. Other flags go to ``chunk-contract fuzz``
    (``--timeout``, ``--rss-limit-mb``, ``--max-len``, ``--stop-first``, ``-libfuzzer_flag=value``).
    """
    import json
    import shutil
    from pathlib import Path

    session.install("-e", ".[fuzz]")
    args = list(session.posargs)
    if args and not args[0].startswith("-"):
        targets = [args.pop(0)]
    else:
        targets = [t for t in REFERENCE_CHUNKERS  # workbook plugins cannot be fuzzed yet
                   if Path(t.partition(":")[0]).is_file() and "spreadsheet" not in t]
        if shutil.which("node"):
            targets.append("exec:node chunk_contract_reference/js/chunker.mjs")
    found = []
    for number, target in enumerate(targets):
        summary = Path(session.create_tmp()) / f"fuzz-summary-{number}.json"
        summary.unlink(missing_ok=True)
        session.run("chunk-contract", "fuzz", target, *args, "--summary-json", str(summary),
                    success_codes=[0, 1])
        findings = json.loads(summary.read_text())["findings"] if summary.is_file() else [{}]
        if any(f.get("confirmed", True) for f in findings):
            found.append(target)
    if found:
        session.error(f"fuzzing found contract violations in {', '.join(found)} "
                      "(see the reproducers above)")


#: The libraries behind the built-in adapters (chunk_contract/integrations/adapters), at the
#: versions that docs/conformance.md was made with. Keep in step with the ``peers`` extra in
#: pyproject.toml.
PEERS = [
    "langchain-text-splitters==1.1.3",
    "llama-index-core==0.14.25",
    "chonkie==1.7.0",
    "semchunk==4.1.1",
    "semantic-text-splitter==0.33.1",
    "haystack-ai==3.4.1",
    "unstructured==0.27.35",
    "tree-sitter==0.26.1",
    "tree-sitter-python==0.25.0",
]


@nox.session
def peers(session: nox.Session) -> None:
    """Install the adapted libraries (pinned), run the contract on every adapter on 5 seeds
    (the LangChain.js ones too, when node is on PATH), store the evidence in
    docs/conformance-evidence.json and regenerate docs/conformance.md from it and the reviewed
    findings (chunk_contract/integrations/adapters/findings/*.toml). Fails if the evidence and the
    findings disagree: a violation without a finding, an ``expect`` that does not match, a finding
    no seed reproduced.

    Offline after the install: the adapters use only tokenizers the libraries ship. Pass
    options through: ``nox -s peers -- --only semchunk --seeds 2``; ``nox -s peers --
    --render-only`` only re-renders the page (no library needed).
    """
    session.install("-e", ".", *PEERS)
    session.env.update(OFFLINE)
    bridge = "chunk_contract/integrations/adapters/js"
    if shutil.which("node") and not (ROOT / bridge / "node_modules").exists():
        session.run("npm", "ci", "--prefix", bridge, "--no-audit", "--no-fund",
                    external=True)
    session.run(
        "python", "-m", "chunk_contract.integrations.adapters.conformance", "--evidence",
        "docs/conformance-evidence.json", "--doc", "docs/conformance.md", "--jobs", "2",
        "--strict", *session.posargs,
    )


@nox.session
def mutation(session: nox.Session) -> None:
    """Mutation testing with the contract as the test suite (mutmut, 2 cores).

    ``nox -s mutation`` mutates chunk_contract_reference/ and fails on a survivor that is not
    triaged in docs/mutation-baseline.toml, or on a score under 90%.
    ``nox -s mutation -- path/to/file.py:attr`` mutates a third-party chunker file instead.
    Reports: build/mutation/ (JSON, HTML, markdown; see docs in
    chunk_contract/integrations/mutation).
    """
    session.install("-e", ".[mutation]")
    session.run("chunk-contract", "mutate", "--max-children", "2", *session.posargs)


@nox.session
def mutation_js(session: nox.Session) -> None:
    """StrykerJS on a JavaScript chunker, the contract as its test command (2 processes).

    ``nox -s mutation_js`` mutates chunk_contract_reference/js/chunker.mjs, triaged in
    docs/mutation-baseline-js.toml; ``nox -s mutation_js -- path/to/chunker.mjs`` another file.
    Reports: build/mutation-js/. Needs node >= 20 (npm ci installs the pinned Stryker).
    """
    session.install("-e", ".")
    session.run("npm", "ci", "--prefix", "chunk_contract/integrations/mutation/stryker",
                "--no-audit", "--no-fund", external=True)
    session.run("python", "-m", "chunk_contract.integrations.mutation.js", *session.posargs)
