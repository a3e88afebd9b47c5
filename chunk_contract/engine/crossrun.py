"""``deterministic`` across interpreters: the same inputs, chunked again in a fresh Python.

The worker is forked, so its reruns share the parent's hash seed: ids built from ``hash()``,
or output that follows set iteration order, look stable within one run and change with the
next interpreter. After exploring, the runner sends the run's most telling clean inputs
(:class:`Samples`) to new interpreters, each with another ``PYTHONHASHSEED``, and compares the
chunks (:mod:`chunk_contract.engine.fresh` judges them, and narrows a difference down with
:func:`smaller`). A workbook plugin's inputs cross as their JSON description (SPEC §7) and are
built into an openpyxl workbook there, as the worker builds them: a workbook chunker whose
ids or order follow ``hash()`` or a set of sheet names is judged the same way.

An out-of-process target (``exec:`` or a kind built on a command) is judged the same way
by a new child of its own, started with ``PYTHONHASHSEED`` set in its environment
(:mod:`chunk_contract.engine.freshchild`; :func:`chunk_contract.engine.fresh.rerun` chooses):
a Python child then hashes otherwise, and any child starts without the state the run's calls
left in the first one. An ``http(s)://`` service has no process of its own to start, and
gives no verdict.

The fresh interpreter is contained like a worker: it starts in a session (and process group)
of its own, registered with :mod:`chunk_contract.containment.reaper`; it caps its own address space
(RLIMIT_AS, the worker's ``memory_mb`` above its start size) before it loads the plugin; it
dies with its parent (PR_SET_PDEATHSIG); and past its deadline its whole group is killed.
Documents and chunk records cross the pipe as :mod:`chunk_contract.exactjson`, so separated
surrogates stay apart.

Its outcome is the one message it writes on its answer channel (a private copy of its stdout):
``{"answers": [...]}``, or ``{"unloadable": why}`` when the target cannot be loaded there; its
exit status says nothing, since the plugin, loaded in it, can choose it. A fresh interpreter
that hangs, dies, exits or answers anything else is a finding (:attr:`Rerun.failure`), never a
silent pass; so is one that cannot load a target the worker loaded by name (``required``).

    python -m chunk_contract.engine.crossrun TARGET < cases.json > chunks.json   (the child side)
"""

from __future__ import annotations

import itertools
import os
import random
import re
import resource
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from chunk_contract import exactjson
from chunk_contract.containment import pipes, reaper, sandbox
from chunk_contract.spec.model import CHUNK_FIELDS, Config, chunks_from_records, plural

if TYPE_CHECKING:
    from chunk_contract.engine.session import Observation

#: Inputs re-chunked in the fresh interpreters, chosen among the SAMPLE_POOL most telling.
SAMPLES = 8
SAMPLE_POOL = 32
#: Fresh interpreters, each with a hash seed of its own. Whether two strings keep their order
#: in a set is a coin toss for each seed: one other seed misses output that follows set order
#: half the time, two a quarter of the time.
INTERPRETERS = 2
#: The longest document, and the most chunks, of a sample: the reruns stay cheap.
SAMPLE_CHARS = 2_000
SAMPLE_CHUNKS = 100
#: The most cells of a workbook sample (its description as JSON at most SAMPLE_JSON chars).
SAMPLE_CELLS = 400
SAMPLE_JSON = 40_000
#: Seconds the fresh interpreter gets to start, on top of the calls and (from
#: :func:`chunk_contract.engine.fresh.rerun`) of the worker's allowance to load the plugin.
STARTUP_SECONDS = 10.0
#: Characters of the fresh interpreter's stderr quoted in a finding.
TAIL_CHARS = 1500
#: Characters of the reason a target could not be loaded that the answer carries.
REASON_CHARS = 500
_ENV_MEMORY = "CHUNK_CONTRACT_RERUN_MEMORY_MB"
_ENV_PARENT = "CHUNK_CONTRACT_RERUN_PARENT"

#: One case's answer: chunk records, or the exception the plugin raised ({"error": "..."}).
Answer = list[dict[str, Any]] | dict[str, str]


@dataclass(frozen=True)
class Rerun:
    """What the fresh interpreter gave back: one answer per case, or why there is none."""

    hash_seed: int
    answers: list[Answer] = field(default_factory=list)
    #: Why it gave no answers (hang, death, unreadable output); "" when it answered.
    failure: str = ""
    #: False when the target cannot be loaded by name in a new interpreter and the caller did
    #: not require it (a plugin object given through the API): no verdict at all.
    loadable: bool = True


class Samples:
    """The SAMPLES most telling clean inputs of a run, for the fresh interpreters: distinct
    (document, config) pairs with a valid config, chunked into at most SAMPLE_CHUNKS, of text
    documents up to SAMPLE_CHARS or workbook descriptions up to SAMPLE_CELLS cells, ranked by
    how many different chunk lengths they gave, then by how many chunks (the earlier one kept on
    a tie). Chunks of many lengths are boundaries the chunker chose from the content, which is
    where output that follows set order shows; a document cut into equal pieces, or not cut at
    all, shows only ids built from ``hash()``.

    The SAMPLE_POOL best are kept, and the SAMPLES sent are the best of each :func:`shape`
    first, then the best of the rest: a chunker whose output depends on what it chunked before
    (a mode chosen by the first document it saw, and cached) answers otherwise only where a
    document unlike the ones before it comes first. So the list starts with the shape least
    like the run's first input's, and ends with the next least like it: the interpreters that
    take the list in reverse start there."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, Config], tuple[tuple[int, int, int], Observation]] = {}
        self._offered = 0
        self._first: tuple[Any, ...] | None = None  # the shape of the first input called

    def called(self, document: Any) -> None:
        """Note an input the plugin was called on (every one, in order, clean or not)."""
        if self._first is None:
            self._first = shape(document)

    def offer(self, seen: Observation) -> None:
        """Keep ``seen`` (a clean observation) if it is among the most telling so far."""
        chunks, shown = seen.chunks, _sample_key(seen.document)
        if not chunks or len(chunks) > SAMPLE_CHUNKS or not seen.config.is_valid or not shown:
            return
        key = (shown, seen.config)
        if key in self._kept:
            return
        self._offered += 1
        rank = (len({len(c.text) for c in chunks}), len(chunks), -self._offered)
        self._kept[key] = (rank, seen)
        if len(self._kept) > SAMPLE_POOL:
            del self._kept[min(self._kept, key=lambda k: self._kept[k][0])]

    @property
    def chosen(self) -> list[Observation]:
        """The SAMPLES sent: the most telling of each shape, then the most telling others; the
        first and the last are the two shapes least like the run's first input's."""
        ranked = sorted(self._kept.values(), key=lambda kept: kept[0], reverse=True)
        firsts: list[tuple[Observation, tuple[Any, ...]]] = []
        others: list[tuple[Observation, tuple[Any, ...]]] = []
        for _, seen in ranked:
            found = shape(seen.document)
            (others if any(found == s for _, s in firsts) else firsts).append((seen, found))
        # each order starts with a shape unlike the run's first input
        first = self._first or ()
        ends = [_least_like(firsts, first) for _ in range(min(2, len(firsts)))]
        middle = [seen for seen, _ in firsts + others][: SAMPLES - len(ends)]
        return ends[:1] + middle + ends[1:]


_SHAPES = tuple(re.compile(p) for p in (
    r"(?m)^ {0,3}#{1,6}(?:[ \t]|$)",  # an ATX heading
    r"(?m)^ {0,3}(?:```|~~~)",  # a code fence
    r"\r",  # CR line endings, alone or in CRLF
    r"(?m)^ {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]",  # a list item
    r"(?m)^ {0,3}\|",  # a table row
    r"[^\x00-\x7f]",  # text beyond ASCII
))


def _least_like(found: list[tuple[Observation, tuple[Any, ...]]],
                other: tuple[Any, ...]) -> Observation:
    """Take from ``found`` (ranked, each with its shape) the first whose shape is least like
    ``other``."""
    best = max(range(len(found)), key=lambda k: (_unlike(found[k][1], other), -k))
    return found.pop(best)[0]


def _unlike(a: tuple[Any, ...], b: tuple[Any, ...]) -> int:
    """How many of two shapes' features differ."""
    return sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b))


def shape(document: Any) -> tuple[Any, ...]:
    """What kind of document this is, for choosing samples unlike each other: which of a
    heading, a code fence, CR, a list, a table and non-ASCII text a text holds; a workbook's
    number of sheets."""
    if isinstance(document, str):
        return tuple(bool(p.search(document)) for p in _SHAPES)
    return ("workbook", len(document.get("sheets", {})))


def _sample_key(document: Any) -> str | None:
    """The text that stands for ``document`` among the samples (:func:`identity`), or None when
    it is too large to be one, or neither text nor a workbook description."""
    if isinstance(document, str):
        return document if len(document) <= SAMPLE_CHARS else None
    sheets = document.get("sheets") if isinstance(document, dict) else None
    if not isinstance(sheets, dict) or _cells(document) > SAMPLE_CELLS:
        return None
    shown = identity(document)
    return shown if len(shown) <= SAMPLE_JSON else None


def identity(document: Any) -> str:
    """A document as a key: a text itself, a workbook description its JSON."""
    return document if isinstance(document, str) else exactjson.dumps(document)


#: Rounds of narrowing down a document a fresh interpreter chunks differently.
SHRINK_ROUNDS = 12
#: The most pieces a round cuts the document (a text, or each sheet's cells) into.
SHRINK_PIECES = 16


def smaller(document: Any, differs: Callable[[list[Any]], int | None]) -> Any:
    """The smallest document found that still comes back different: each round tries the
    pieces of ``document`` and ``document`` with one piece left out (:func:`candidates`) in one
    fresh interpreter; ``differs`` gives the index of the first of a batch that differs, or
    None. Stops when no candidate differs, after SHRINK_ROUNDS rounds."""
    for _ in range(SHRINK_ROUNDS):
        batch = candidates(document)
        found = differs(batch) if batch else None
        if found is None:
            break
        document = batch[found]
    return document


def candidates(document: Any) -> list[Any]:
    """Smaller documents than ``document``, smallest first, each once: a text's halves,
    quarters, eighths and sixteenths alone, then with one of them left out; a workbook
    description's sheets alone and left out, and the same pieces of each sheet's cells."""
    if isinstance(document, str):
        return sorted((c for c in _pieces(document) if c.strip() and c != document), key=len)
    sheets: dict[str, dict[str, Any]] = document["sheets"]
    found = [{t: c} for t, c in sheets.items()] + [
        {t: c for t, c in sheets.items() if t != left} for left in sheets]
    for title, cells in sheets.items():
        refs = list(cells)
        found += [{**sheets, title: {r: cells[r] for r in part}} for part in _pieces(refs)]
    books = {identity(book): book for book in ({"sheets": s} for s in found) if _cells(book)}
    books.pop(identity(document), None)
    return [books[k] for k in sorted(books, key=len)]


def _pieces(items: Any) -> list[Any]:
    """The halves, quarters, eighths and sixteenths of ``items`` (a str or a list) alone, then
    with one of them left out, each once."""
    seen: dict[Any, Any] = {}
    for parts in (2, 4, SHRINK_PIECES // 2, SHRINK_PIECES):
        cuts = sorted({len(items) * k // parts for k in range(parts + 1)})
        for a, b in itertools.pairwise(cuts):
            for piece in (items[a:b], items[:a] + items[b:]):
                seen.setdefault(piece if isinstance(piece, str) else tuple(piece), piece)
    return list(seen.values())


def _cells(book: dict[str, Any]) -> int:
    return sum(map(len, book["sheets"].values()))


def hash_seeds(count: int = INTERPRETERS) -> list[int]:
    """``count`` different random hash seeds, one for each fresh interpreter."""
    return random.sample(range(1, 2**31), count)


_NAMED_SEED = re.compile(r"PYTHONHASHSEED=(\d+)")


def named(seed: int) -> str:
    """How a finding names a fresh interpreter; :func:`named_seeds` reads it back."""
    return f"PYTHONHASHSEED={seed}"


def interpreter(seed: int) -> str:
    """A fresh interpreter as a finding names it."""
    return f"a fresh interpreter ({named(seed)})"


def named_seeds(message: str) -> list[int]:
    """The hash seeds a finding's message names (:func:`named`), in order, each once: what
    ``replay`` runs again, so that a finding that depends on the hash seed replays the same."""
    return list(dict.fromkeys(int(n) for n in _NAMED_SEED.findall(message)))[:INTERPRETERS]


def rerun(
    target: str,
    cases: Sequence[tuple[str, Config]],
    *,
    timeout: float,
    memory_mb: int | None = 1024,
    hash_seed: int | None = None,
    startup: float = STARTUP_SECONDS,
    required: bool = True,
) -> Rerun:
    """Chunk ``cases`` in a new, contained interpreter with another hash seed (an
    out-of-process target gets a new child instead: see
    :func:`chunk_contract.engine.fresh.rerun`).

    ``required``: the target was loaded by name (the worker did it), so a fresh interpreter
    that cannot load it is a failure; else (an API object, perhaps not importable by name) it
    gives no verdict (``loadable=False``).
    """
    seed = hash_seed if hash_seed is not None else random.randrange(1, 2**31)
    deadline = startup + timeout * len(cases)
    payload = exactjson.dumps([{"document": d, "config": c.as_dict()} for d, c in cases])
    env = {**os.environ, "PYTHONHASHSEED": str(seed), _ENV_PARENT: str(os.getpid())}
    env[_ENV_MEMORY] = "" if memory_mb is None else str(memory_mb)
    try:
        code, out, err = _communicate(target, payload, env, deadline)
    except OSError as exc:
        return Rerun(seed, failure=f"could not be started: {exc}")
    done = _outcome(seed, code, out, err, deadline, len(cases))
    if not done.loadable and required:
        return Rerun(seed, failure=f"could not load the target the worker loaded: {done.failure}")
    return done


def _communicate(
    target: str, payload: str, env: dict[str, str], deadline: float
) -> tuple[int | None, bytes, bytes]:
    """Runs the child on ``payload``; (exit status or None on a hang, stdout, stderr)."""
    reaper.undumpable()  # the plugin cannot open this process's /proc/PID/mem or fd
    with reaper.signals_blocked():
        child = subprocess.Popen(
            [sys.executable, "-m", "chunk_contract.engine.crossrun", target],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
        )
        reaper.register(child.pid, "fresh interpreter")
    try:
        # not communicate(): a grandchild that left the group may hold the pipes open for ever
        done = pipes.exchange(child, payload.encode("utf-8"), deadline=deadline)
    finally:
        reaper.kill_group(child.pid)  # whatever it started in its group goes with it
        reaper.unregister(child.pid)
        if child.poll() is None:
            child.kill()
        child.wait()
    return (None if done.timed_out else child.returncode), done.out, done.err


def _outcome(seed: int, code: int | None, out: bytes, err: bytes, deadline: float,
             count: int) -> Rerun:
    """The Rerun for the child's answer; its exit status only describes a missing one."""
    tail = _tail(err)
    if code is None:
        return Rerun(seed, failure=f"did not answer within {deadline:g} s (killed){tail}")
    if not out:
        how = f"died ({_describe(code)})" if code else "exited with status 0"
        return Rerun(seed, failure=f"{how} before answering{tail}")
    try:
        message = exactjson.loads(out)
    except ValueError as exc:
        return Rerun(seed, failure=f"answered output that is not its JSON reply ({exc}){tail}")
    return _answered(seed, message, count, tail)


def _answered(seed: int, message: Any, count: int, tail: str) -> Rerun:
    """The Rerun for a parsed answer: its replies, the reason it could not load, or garbage."""
    shape = sorted(message) if isinstance(message, dict) else None
    if shape == ["unloadable"] and isinstance(message["unloadable"], str):
        return Rerun(seed, failure=message["unloadable"][:REASON_CHARS], loadable=False)
    answers = message.get("answers") if shape == ["answers"] else None
    if not isinstance(answers, list) or len(answers) != count:
        return Rerun(seed, failure=f"answered {_brief(message)}, not {count} replies{tail}")
    return Rerun(seed, answers)


def _brief(value: Any) -> str:
    """A short repr of an answer, for a finding."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _describe(code: int) -> str:
    """``exit status 1`` or ``killed by SIGSEGV``."""
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def _tail(err: bytes) -> str:
    """The end of the child's stderr, as a message suffix ("" when it printed nothing)."""
    text = err.decode("utf-8", "backslashreplace").strip()
    if not text:
        return ""
    return f"; its stderr ends with:\n{text[-TAIL_CHARS:]}"


def difference(before: list[dict[str, Any]], answer: Answer) -> str | None:
    """How the fresh interpreter's answer differs from the worker's records, or None."""
    if isinstance(answer, dict):
        return f"it raised {answer.get('error', '?')} where the worker gave {len(before)} chunks"
    return first_difference(before, answer)


def first_difference(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> str | None:
    """Where two chunk lists differ (texts, offsets, lines, ids), or None."""
    a, b = chunks_from_records(before), chunks_from_records(after)
    if len(a) != len(b):
        return f"{plural(len(a), 'chunk')}, then {len(b)}"
    for x, y in zip(a, b):
        for name, p, q in zip(CHUNK_FIELDS, x.comparable(), y.comparable()):
            if p != q:
                return f"chunk[{x.index}].{name} was {p!r}, then {q!r}"
    return None


# ----------------------------------------------------------------------------- the child side


def _contain_self() -> None:
    """First thing in the child: die with the parent, then cap the address space."""
    pipes.close_inherited()  # only stdin, stdout and stderr: none of the host's descriptors
    parent = os.environ.get(_ENV_PARENT, "")
    if parent.isdigit():
        signal.signal(signal.SIGTERM, _kill_own_group)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, set(reaper.SIGNALS))  # started while blocked
        reaper.die_with_parent(signal.SIGTERM, int(parent))
        sandbox.shield()  # the plugin cannot signal, trace or re-limit the host or its ancestors
    _cap_memory_from_env()


def _cap_memory_from_env() -> None:
    """The cap of ``$CHUNK_CONTRACT_RERUN_MEMORY_MB`` above the current size, if one is set.

    Called before the plugin loads (an import cannot take more than the cap either) and again
    after, so the calls get ``memory_mb`` above the loaded size, as in a forked worker: a big
    library's import must not turn into a false MemoryError in the fresh interpreter only.
    """
    memory = os.environ.get(_ENV_MEMORY, "")
    if memory.isdigit():
        _cap_memory(int(memory))


def _kill_own_group(signum: int, frame: object) -> None:
    """On SIGTERM (the parent died): take the whole group, this process included, down."""
    os.killpg(os.getpgrp(), signal.SIGKILL)


def _cap_memory(memory_mb: int) -> None:
    """RLIMIT_AS at the current virtual size plus ``memory_mb`` MiB (never raised)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            base = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return
    limit = base + memory_mb * 2**20
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _answer_case(plugin: Any, case: dict[str, Any]) -> Answer:
    """The chunk records of one case, or the exception the plugin raised. A workbook plugin's
    document is built from its description first, as the worker builds it."""
    # lazy: the fresh interpreter imports only what it runs
    from chunk_contract.spec.model import normalise_chunks

    config, document = case["config"], case["document"]
    try:
        if plugin.kind == "workbook":
            # lazy: only a workbook plugin's fresh interpreter needs openpyxl
            from chunk_contract.spec.workbook import build

            document = build(document)
        result = plugin.split(document, max_size=config["max_size"], overlap=config["overlap"])
        records = normalise_chunks(result)
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {str(exc)[:200]}"}
    return answered(records)


def answered(records: list[dict[str, Any]]) -> Answer:
    """Chunk records as an answer: without ``bare``, which says how a plugin returned a chunk,
    not what it holds."""
    return [{k: v for k, v in r.items() if k != "bare"} for r in records]


def _serve(target: str) -> int:
    """Reads the cases on stdin, writes one answer per case on stdout.

    The plugin's own writes to fd 1 go to stderr (the answer has a private copy of stdout), and
    the answer is written before the plugin's threads can keep the interpreter alive: the
    caller exits with os._exit right after.
    """
    _contain_self()
    answer = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # what the plugin prints cannot corrupt the answer
    # lazy: the fresh interpreter imports only what it runs
    from chunk_contract.transport.targets import TargetError

    # this fresh interpreter calls the plugin
    # lazy: the fresh interpreter imports only what it runs
    from chunk_contract.transport.targets import load_here as load

    try:
        plugin = load(target)
    except TargetError as exc:
        _reply(answer, {"unloadable": str(exc)[:REASON_CHARS]})
        return 0
    _cap_memory_from_env()
    cases = exactjson.loads(sys.stdin.buffer.read())
    _reply(answer, {"answers": [_answer_case(plugin, case) for case in cases]})
    return 0


def _reply(answer: Any, message: dict[str, Any]) -> None:
    """The one message of the answer channel."""
    answer.write(exactjson.dumps(message))
    answer.flush()


def _main(target: str) -> None:
    """Serve, then leave at once: a non-daemon thread the plugin started must not hold the
    interpreter (and the caller's deadline) after the answer is written. The exit status
    means nothing to the caller (see the module doc)."""
    code = 1
    try:
        code = _serve(target)
    except BaseException:
        import traceback

        traceback.print_exc()  # the caller quotes the end of stderr
    finally:
        sys.stderr.flush()
        os._exit(code)


if __name__ == "__main__":
    _main(sys.argv[1])
