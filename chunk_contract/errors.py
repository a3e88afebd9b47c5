"""One root for the errors a user can fix, and the bounds every setting is checked against.

Every error that means "the input you gave is wrong" (a flag, a target, a pyproject.toml table,
a reproducer, a database, a report path) derives from :class:`UsageError`. ``chunk-contract``
catches that one class, prints exactly one line ``chunk-contract: error: <message>`` and exits
2. Nothing else is ever a usage error: a crash of the plugin is a violation (exit 1), and a
crash of chunk-contract itself is a bug with a traceback.

The same bounds apply to a flag, a ``[tool.chunk-contract]`` key and a reproducer's limits, so a
setting that one of them refuses is refused by all (SPEC is silent on maxima; these keep a typo
from becoming a run that never ends or a worker that takes the machine down).

This module imports only the standard library (the pytest plugin imports it at load time).
"""

from __future__ import annotations

import math
import os
import re
from typing import Any

#: A per-call timeout above an hour is a typo, not a budget.
MAX_TIMEOUT = 3600.0
#: Below this a worker cannot even import the plugin.
MIN_MEMORY_MB = 64
#: The default worker memory cap (MiB); a reproducer can never raise its replay above it.
DEFAULT_MEMORY_MB = 1024
MAX_EXAMPLES = 10**7
#: A seed is kept in reports and reproducers as a JSON number.
MAX_SEED = 2**64
#: Time budgets (explore, shrink): at most a week.
MAX_SECONDS = 7 * 24 * 3600.0
#: max_size, overlap, max_length: far beyond any real document, far below a MemoryError.
MAX_SIZE = 10**9


class UsageError(Exception):
    """Bad flags, targets, settings or files: one line on stderr and exit 2."""


class InvalidArgument(UsageError):
    """A value outside its type or bounds (a flag, a pyproject.toml key, a reproducer field)."""


def physical_memory_mb() -> int:
    """The machine's physical memory in MiB (a generous fallback when the OS does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (ValueError, OSError, AttributeError):
        return 2**20


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _shown(value: Any) -> str:
    """``value`` for a message: its repr, cut to 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def check_int(name: str, value: Any, low: int, high: int) -> int:
    """``value`` if it is an integer in ``[low, high]``, else InvalidArgument naming ``name``."""
    if not _is_int(value) or not low <= value <= high:
        expected = f"a positive integer of at most {high}" if low == 1 else (
            f"an integer from {low} to {high}"
        )
        raise InvalidArgument(f"{name} must be {expected}, got {_shown(value)}")
    return int(value)


def check_seconds(name: str, value: Any, high: float) -> float:
    """``value`` as seconds if it is a finite number in ``(0, high]``, else InvalidArgument."""
    if not _is_number(value) or not math.isfinite(value) or not 0 < value <= high:
        raise InvalidArgument(
            f"{name} must be a positive number of seconds, finite and at most {high:g}, "
            f"got {_shown(value)}"
        )
    return float(value)


def check_memory(name: str, value: Any) -> int:
    """A worker memory cap in MiB: at least 64, at most the machine's physical memory."""
    return check_int(name, value, MIN_MEMORY_MB, max(MIN_MEMORY_MB, physical_memory_mb()))


def check_setting(name: str, value: Any, *, label: str | None = None) -> Any:
    """Check one budget setting (``max_examples``, ``timeout``, ...) by its snake-case name."""
    shown = label or name.replace("_", "-")
    if name == "max_examples":
        return check_int(shown, value, 1, MAX_EXAMPLES)
    if name == "seed":
        return check_int(shown, value, -MAX_SEED, MAX_SEED)
    if name == "timeout":
        return check_seconds(shown, value, MAX_TIMEOUT)
    if name == "memory_mb":
        return check_memory(shown, value)
    if name in ("explore_seconds", "shrink_seconds"):
        return check_seconds(shown, value, MAX_SECONDS)
    if name in ("max_length", "max_size"):
        return check_int(shown, value, 1, MAX_SIZE)
    raise KeyError(name)


#: Characters of any plugin-controlled text shown in one message (a line, a report entry).
MESSAGE_CHARS = 2000
_SCHEME_LOOKBACK = 256
#: One run of characters up to a slash or a space: one quantifier, matched in linear time.
_HOST_PART = re.compile(r"[^\s/]*")
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")


def cut(text: str, limit: int = MESSAGE_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying how many were left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more characters)"


def redact(text: str) -> str:
    """``text`` with the secret of every URL in it masked: ``redis://user:***@host``.

    The password after ``user:`` is masked; a user part without a colon is masked whole, since
    some URL schemes (Redis among them) take a lone user part as the password. One pass over
    ``text``, no regular expression: plugin-controlled text of any length is redacted in
    linear time.
    """
    out: list[str] = []
    done = start = 0
    while (found := text.find("://", start)) >= 0:
        after = found + 3
        scheme = _scheme_start(text, found)
        at = _userinfo_end(text, after)
        if scheme < found and at >= 0:
            out += [text[done:after], _masked(text[after:at]), "@"]
            done = at + 1
        start = max(after, done)
    out.append(text[done:])
    return "".join(out)


def _scheme_start(text: str, colon: int) -> int:
    """Where the URL scheme ending at ``colon`` starts (``colon`` itself when there is none);
    looks back at most _SCHEME_LOOKBACK characters (the masking is the same either way)."""
    begin, stop = colon, max(0, colon - _SCHEME_LOOKBACK)
    while begin > stop and text[begin - 1] in _SCHEME_CHARS:
        begin -= 1
    while begin < colon and not (text[begin].isascii() and text[begin].isalpha()):
        begin += 1
    return begin


def _userinfo_end(text: str, after: int) -> int:
    """The last ``@`` before the host part that starts at ``after`` ends (at a slash, a space
    or the end), or -1 when there is none."""
    match = _HOST_PART.match(text, after)
    end = match.end() if match else after
    return text.rfind("@", after, end)


def _masked(info: str) -> str:
    user, colon, _ = info.partition(":")
    return f"{user}:***" if colon else "***"


#: C0 and C1 controls, DEL, bidirectional overrides and the XML-invalid noncharacters: shown as
#: escapes, never sent to a terminal or written into XML as they are.
_UNSAFE = [*range(0x00, 0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A),
           0xFFFE, 0xFFFF, *range(0xD800, 0xE000)]
_ESCAPES = {code: ascii(chr(code))[1:-1] for code in _UNSAFE}
_ESCAPES_KEEP_LINES = {**_ESCAPES, ord("\n"): "\n", ord("\t"): "\t"}


def printable(text: Any, *, limit: int = MESSAGE_CHARS, lines: bool = False) -> str:
    """Plugin-controlled ``text``, safe for a terminal, a log or an XML file: cut to ``limit``
    characters first, then every control character (ESC, CR, BEL, C1), bidirectional override
    and lone surrogate shown as its escape (``\\x1b``). ``lines``: newlines and tabs stay (a
    multi-line report entry); otherwise they are escaped too."""
    table = _ESCAPES_KEEP_LINES if lines else _ESCAPES
    return cut(str(text), limit).translate(table)


def one_line(text: str) -> str:
    """``text`` on one line, cut, secrets redacted, control characters escaped: what a usage
    error prints."""
    return printable(redact(" ".join(cut(str(text)).split())))


class UnknownInvariant(UsageError, KeyError):
    """An invariant id no rule is registered under (still a KeyError, for older callers)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""
