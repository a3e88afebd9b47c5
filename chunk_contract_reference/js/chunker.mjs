// A recursive chunker in JavaScript (node 20, no dependencies), speaking chunk-contract's
// out-of-process protocol (SPEC §8; docs/protocol.md) on stdin/stdout.
//
// Run it:  chunk-contract run "exec:node chunk_contract_reference/js/chunker.mjs"
//
// How it stays correct:
// * It works on an array of code points (Array.from), never on UTF-16 indices, so no cut can
//   fall between the two halves of a surrogate pair; offsets are reported in UTF-16 code units
//   (the handshake says offsets: "utf16") from a prefix table, and UTF-8 byte offsets too.
// * Whitespace is Python's str.isspace() set (SPACE below), not JavaScript's \s or trim(),
//   which differ on U+FEFF and U+001C-U+001F.
// * Pieces: the text is cut at blank lines, then lines, then whitespace runs, then every
//   (max_size - overlap) code points, each piece trimmed; so every piece fits in
//   max_size - overlap and there is room for one whole new piece after any overlap.
// * Packing: a chunk is as many whole pieces as fit in max_size (overlap included); the next
//   chunk starts at the first piece lying within `overlap` code points of the previous end, but
//   always at a later piece, and ends at least one piece further: both starts and ends strictly
//   increase on every config, so the loop always advances (seed 003's hang cannot happen).
// * Lines: only "\n" ends a line (SPEC §4); line_end is the line of the last character.
// * Degenerate configs (max_size < 1, overlap < 0 or >= max_size, non-integers) are refused
//   with an error of type "config".
import { createInterface } from "node:readline";

const SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000,
  0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028,
  0x2029, 0x202f, 0x205f, 0x3000,
]);
const NEWLINE = 0x0a;

/** True for the characters Python's str.isspace() accepts. */
function isSpace(cp) {
  return SPACE.has(cp);
}

/** A document as code points, with prefix tables for UTF-16, UTF-8 and line offsets. */
class Text {
  constructor(document) {
    this.chars = Array.from(document);
    this.points = this.chars.map((c) => c.codePointAt(0));
    const n = this.chars.length;
    this.utf16 = new Array(n + 1);
    this.utf8 = new Array(n + 1);
    this.lines = new Array(n + 1); // "\n" before each offset
    this.utf16[0] = this.utf8[0] = this.lines[0] = 0;
    for (let i = 0; i < n; i++) {
      const cp = this.points[i];
      this.utf16[i + 1] = this.utf16[i] + (cp > 0xffff ? 2 : 1);
      this.utf8[i + 1] = this.utf8[i] + (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);
      this.lines[i + 1] = this.lines[i] + (cp === NEWLINE ? 1 : 0);
    }
  }

  get length() {
    return this.chars.length;
  }

  /** [lo, hi) without whitespace at either end (lo === hi when blank). */
  trim(lo, hi) {
    while (lo < hi && isSpace(this.points[lo])) lo++;
    while (hi > lo && isSpace(this.points[hi - 1])) hi--;
    return [lo, hi];
  }

  /** The chunk record of code point span [lo, hi). */
  chunk(lo, hi) {
    return {
      text: this.chars.slice(lo, hi).join(""),
      start: this.utf16[lo],
      end: this.utf16[hi],
      start_byte: this.utf8[lo],
      end_byte: this.utf8[hi],
      line_start: this.lines[lo] + 1,
      line_end: this.lines[hi - 1] + 1,
      id: `${lo}:${hi}`,
    };
  }
}

/** The rungs of the ladder: does a whitespace run holding `newlines` "\n" separate pieces? */
const RUNGS = [(newlines) => newlines >= 2, (newlines) => newlines >= 1, () => true];

/** Trimmed pieces covering every non-space character of [lo, hi), each at most `limit`. */
function pieces(text, lo, hi, limit, level, out) {
  [lo, hi] = text.trim(lo, hi);
  if (lo === hi) return out;
  if (hi - lo <= limit) {
    out.push([lo, hi]);
    return out;
  }
  if (level === RUNGS.length) {
    for (let at = lo; at < hi; at += limit) {
      const [a, b] = text.trim(at, Math.min(at + limit, hi));
      if (a < b) out.push([a, b]);
    }
    return out;
  }
  let begin = lo;
  let i = lo;
  while (i < hi) {
    if (!isSpace(text.points[i])) {
      i++;
      continue;
    }
    let j = i;
    let newlines = 0;
    while (j < hi && isSpace(text.points[j])) newlines += text.points[j++] === NEWLINE ? 1 : 0;
    if (RUNGS[level](newlines)) {
      pieces(text, begin, i, limit, level + 1, out);
      begin = j;
    }
    i = j;
  }
  return pieces(text, begin, hi, limit, level + 1, out);
}

/** Code point spans of the chunks: whole pieces packed up to maxSize, overlap included. */
function spans(text, maxSize, overlap) {
  const found = pieces(text, 0, text.length, maxSize - overlap, 0, []);
  const out = [];
  let first = 0;
  while (first < found.length) {
    const start = found[first][0];
    let last = first;
    while (last + 1 < found.length && found[last + 1][1] - start <= maxSize) last++;
    out.push([start, found[last][1]]);
    if (last + 1 >= found.length) break;
    const end = found[last][1];
    let next = first + 1;
    while (next <= last && end - found[next][0] > overlap) next++;
    if (found[last + 1][1] - found[next][0] > maxSize) next = last + 1; // no room: no overlap
    first = next;
  }
  return out;
}

/** SPEC §2's valid configs; anything else is refused. */
function checkConfig(maxSize, overlap) {
  if (!Number.isInteger(maxSize) || maxSize < 1) {
    throw new ConfigError(`max_size must be an integer >= 1, got ${JSON.stringify(maxSize)}`);
  }
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= maxSize) {
    throw new ConfigError(
      `overlap must be an integer with 0 <= overlap < max_size, got ${JSON.stringify(overlap)}`,
    );
  }
}

class ConfigError extends Error {}

/** The chunks of one split call. */
export function split(document, maxSize, overlap) {
  checkConfig(maxSize, overlap);
  if (typeof document !== "string") throw new TypeError("document must be a string");
  const text = new Text(document);
  return spans(text, maxSize, overlap).map(([lo, hi]) => text.chunk(lo, hi));
}

/** The reply to one request line. */
function answer(line) {
  let call;
  try {
    call = JSON.parse(line);
  } catch (error) {
    return { id: null, error: { type: "crash", message: `bad request: ${error.message}` } };
  }
  try {
    if (call.op !== "split") throw new Error(`unknown op ${JSON.stringify(call.op)}`);
    return { id: call.id, chunks: split(call.document, call.max_size, call.overlap) };
  } catch (error) {
    const type = error instanceof ConfigError ? "config" : "crash";
    return { id: call.id, error: { type, message: String(error.message) } };
  }
}

function main() {
  const out = process.stdout;
  out.write(`${JSON.stringify({ chunk_contract: 1, unit: "chars", offsets: "utf16" })}\n`);
  const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
  input.on("line", (line) => out.write(`${JSON.stringify(answer(line))}\n`));
  input.on("close", () => process.exit(0));
}

main();
