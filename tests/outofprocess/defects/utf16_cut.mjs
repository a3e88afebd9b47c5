// A word packer that returns bare strings and cuts a word longer than the cap with JavaScript
// string indices (UTF-16 code units): chunk('x😀y', {maxLength: 2}) gives ['x\ud83d',
// '\ude00y'], an emoji cut into two lone surrogates. Everything else is right: words are
// packed as verbatim slices measured in code points, and whitespace (Python's str.isspace) is
// dropped only between chunks. The contract must report codepoint_integrity.
import { createInterface } from "node:readline";

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
send({ chunk_contract: 1, unit: "chars" });

const WORD = /[^\s\x1c-\x1f\x85]+|\ufeff+/gu; // Python's whitespace: \ufeff is text
const points = (text) => Array.from(text).length;

function split(document, size) {
  const chunks = [];
  let first = -1;
  let last = -1;
  let count = 0; // code points in document.slice(first, last)
  const flush = () => {
    if (first >= 0) chunks.push(document.slice(first, last));
    first = -1;
  };
  for (const match of document.matchAll(WORD)) {
    const start = match.index;
    const end = start + match[0].length;
    const grown = first >= 0 ? count + points(document.slice(last, end)) : 0;
    if (first >= 0 && grown <= size) {
      last = end;
      count = grown;
      continue;
    }
    flush();
    if (points(match[0]) > size) {
      for (let cut = start; cut < end; cut += size) {
        chunks.push(document.slice(cut, Math.min(end, cut + size))); // the bug: code units
      }
    } else {
      first = start;
      last = end;
      count = points(match[0]);
    }
  }
  flush();
  return chunks;
}

createInterface({ input: process.stdin }).on("line", (line) => {
  const { id, document, max_size: size, overlap } = JSON.parse(line);
  if (!Number.isInteger(size) || size < 1 || !Number.isInteger(overlap) || overlap < 0 || overlap >= size) {
    return send({ id, error: { type: "config", message: `bad config ${size}/${overlap}` } });
  }
  send({ id, chunks: split(document, size) });
});
