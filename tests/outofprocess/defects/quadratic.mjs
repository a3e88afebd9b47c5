// DEFECTIVE on purpose (tests only): correct chunks, quadratic time. Each chunk's line number
// is found by splitting the whole text before it, so the work grows with (length / max_size)
// times length. scales_linearly must see it in the child's own CPU time.
import { createInterface } from "node:readline";

function split(document, size) {
  const chars = Array.from(document);
  const chunks = [];
  for (let start = 0; start < chars.length; start += size) {
    const end = Math.min(start + size, chars.length);
    const text = chars.slice(start, end).join("");
    const line = chars.slice(0, start).join("").split("\n").length;
    if (text.trim()) chunks.push({ text, start, end, line_start: line });
  }
  return chunks;
}

process.stdout.write(`${JSON.stringify({ chunk_contract: 1 })}\n`);
createInterface({ input: process.stdin }).on("line", (line) => {
  const call = JSON.parse(line);
  process.stdout.write(`${JSON.stringify({ id: call.id, chunks: split(call.document, call.max_size) })}\n`);
});
