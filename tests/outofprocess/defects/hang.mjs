// DEFECTIVE on purpose (tests only): seed 003's chunkText. The window advances with
// `start = breakPoint + 1 - overlap`, clamped only at 0, so a break point close to start (the
// word fallback) or the last window with overlap >= 2 sends start backwards: it never returns.
import { createInterface } from "node:readline";

function chunkText(text, chunkSize, overlap) {
  const chunks = [];
  let start = 0;
  while (start < text.length) {
    const end = Math.min(start + chunkSize, text.length);
    let breakPoint = end;
    if (end < text.length) {
      const sentence = text.lastIndexOf(". ", end);
      const line = text.lastIndexOf("\n", end);
      const word = text.lastIndexOf(" ", end);
      if (sentence > start + chunkSize * 0.5) breakPoint = sentence + 1;
      else if (line > start + chunkSize * 0.5) breakPoint = line;
      else if (word > start) breakPoint = word;
    }
    const chunk = text.slice(start, breakPoint).trim();
    if (chunk) chunks.push(chunk);
    start = breakPoint + 1 - overlap;
    if (start < 0) start = 0;
  }
  return chunks;
}

process.stdout.write(`${JSON.stringify({ chunk_contract: 1 })}\n`);
createInterface({ input: process.stdin }).on("line", (line) => {
  const call = JSON.parse(line);
  const chunks = chunkText(call.document, call.max_size, call.overlap);
  process.stdout.write(`${JSON.stringify({ id: call.id, chunks })}\n`);
});
