"""The settings of one fuzzing run, and the summary it ends with (shared by both engines)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from chunk_contract.integrations.fuzzing.artifacts import REPRODUCERS, Finding
from chunk_contract.store.reproducers import replay_command

#: fuzz/ of a checkout: the seed corpora and the dictionary (absent from an installed wheel).
FUZZ_DIR = Path(__file__).resolve().parents[3] / "fuzz"
DICTIONARY = FUZZ_DIR / "chunks.dict"
SEEDS = FUZZ_DIR / "corpus"
WORK = Path(".chunk-contract/fuzz")


@dataclass
class FuzzOptions:
    """What ``chunk-contract fuzz TARGET`` was asked to do (see its --help)."""

    target: str
    seconds: float = 60.0
    timeout: float = 2.0
    rss_limit_mb: int = 2048
    max_len: int = 4096
    corpus: str | None = None
    seeds: list[str] | None = None
    no_seeds: bool = False
    dict: str | None = str(DICTIONARY)
    artifacts: str | None = None
    reproducers: str = str(REPRODUCERS)
    log: str | None = None
    summary_json: str | None = None
    stop_first: bool = False
    progress: float = 5.0
    verbose: bool = False
    quiet: bool = False
    only: str = ""
    skip: str = ""
    seed: int = 0
    runs: int | None = None
    libfuzzer: list[str] = field(default_factory=list)

    @property
    def work(self) -> Path:
        """This target's folder under .chunk-contract/fuzz/."""
        return WORK / slug(self.target)

    @property
    def corpus_dir(self) -> Path:
        """The working corpus (kept between runs)."""
        return Path(self.corpus) if self.corpus else self.work / "corpus"

    @property
    def artifact_dir(self) -> Path:
        """Where the engines write their artifacts."""
        return Path(self.artifacts) if self.artifacts else self.work / "artifacts"

    @property
    def log_path(self) -> Path:
        """The engine's full output."""
        return Path(self.log) if self.log else self.work / "fuzz.log"


def slug(target: str) -> str:
    """A folder name for ``target``."""
    return re.sub(r"[^A-Za-z0-9_]+", "-", target).strip("-")[:100] or "target"


def seed_dirs(options: FuzzOptions) -> list[Path]:
    """The seed folders: --seeds, else a reference chunker's own folder, else all of them."""
    if options.no_seeds:
        return []
    if options.seeds:
        return [Path(s) for s in options.seeds]
    folders = sorted(p for p in SEEDS.iterdir() if p.is_dir()) if SEEDS.is_dir() else []
    where = options.target.rpartition(":")[0]
    stem = Path(where).stem if where.endswith(".py") else where.rpartition(".")[2]
    own = [p for p in folders if p.name == stem]
    return own or folders


@dataclass
class Summary:
    """What a fuzzing run did and found (printed, and written with --summary-json)."""

    target: str
    seconds: float
    execs: int
    exec_per_sec: float
    cpu_seconds: float
    coverage: int
    corpus: int
    findings: list[Finding]
    log: str
    rounds: int = 1
    repeats: int = 0
    engine: str = "libfuzzer"

    def as_json(self) -> dict[str, Any]:
        """Plain data for --summary-json."""
        data = asdict(self)
        data["findings"] = [asdict(f) for f in self.findings]
        return data

    @property
    def found(self) -> bool:
        """Whether anything was confirmed in the isolated worker."""
        return any(f.confirmed for f in self.findings)


def render(summary: Summary) -> str:
    """The summary as text: rates, coverage (libFuzzer only), findings with reproducers."""
    lines = [f"chunk-contract fuzz: {summary.target}", "  " + _rates(summary)]
    confirmed = [f for f in summary.findings if f.confirmed]
    unconfirmed = [f for f in summary.findings if not f.confirmed]
    lines.append(f"  {len(confirmed)} finding(s):" if confirmed else "  no findings")
    lines += finding_lines(confirmed, target=summary.target)
    if unconfirmed:
        lines.append(
            f"  {len(unconfirmed)} unconfirmed (seen by the fuzzer, not again in the "
            "isolated worker; no reproducer, not a failure):"
        )
        lines += finding_lines(unconfirmed, target=summary.target)
    if summary.repeats:
        lines.append(
            f"  ({summary.repeats} more artifact(s) showed only invariants already reported)"
        )
    runs = "libFuzzer run(s)" if summary.engine == "libfuzzer" else "blind run(s)"
    lines.append(f"  log: {summary.log} ({summary.rounds} {runs})")
    return "\n".join(lines)


def _rates(summary: Summary) -> str:
    text = (
        f"{summary.seconds:.1f} s, {summary.execs:,} executions, "
        f"{summary.exec_per_sec:,.0f} exec/s"
    )
    if summary.cpu_seconds > 0:
        text += f" ({summary.execs / summary.cpu_seconds:,.0f} per CPU-second)"
    if summary.engine != "libfuzzer":
        return text + ", without coverage feedback (out-of-process target)"
    return text + f", coverage {summary.coverage} edges, corpus {summary.corpus} inputs"


#: What an artifact's kind adds to a finding's line: libFuzzer names every failing input a
#: "crash", so only the kinds that say more than "this input broke a rule" are shown.
_KINDS = {"timeout": " (a hang)", "oom": " (out of memory)", "leak": " (a leak)"}


def finding_lines(findings: Sequence[Finding], *, target: str) -> list[str]:
    """Each finding: id, kind, first message line, document, config, reproducer, artifact."""
    lines = []
    for f in findings:
        lines.append(f"  - {f.invariant or 'unconfirmed'}{_KINDS.get(f.kind, '')}")
        lines.append(f"      {(f.message.splitlines() or [''])[0]}")
        lines.append(f"      document = {f.document}")
        lines.append(f"      config   = {f.config}")
        if f.reproducer:
            lines.append(f"      reproduce: {replay_command(f.reproducer, target)}")
        lines.append(f"      artifact:  {f.artifact}")
    return lines


def seed_corpus(corpus: Path, folders: Sequence[Path]) -> int:
    """Copy seed files into the working corpus, named like libFuzzer names its own inputs.

    One corpus folder (rather than the seed folders next to it) lets the driver drop an input
    that kills the process, so the next round can get past it; the seeds stay untouched.
    """
    import hashlib

    copied = 0
    for folder in folders:
        for seed in sorted(folder.iterdir()) if folder.is_dir() else []:
            if seed.is_file():
                data = seed.read_bytes()
                target = corpus / hashlib.sha1(data).hexdigest()
                if not target.exists():
                    target.write_bytes(data)
                    copied += 1
    return copied
