// LangChain.js text splitters (@langchain/textsplitters) as chunk-contract plugins, speaking
// the out-of-process protocol (SPEC §8; docs/protocol.md) on stdin/stdout.
//
// Run it:  chunk-contract run "exec:node chunk_contract/integrations/adapters/js/bridge.mjs recursive"
// Install: npm ci --prefix chunk_contract/integrations/adapters/js   (the pinned versions in package-lock.json)
//
// The one argument names the splitter (SPLITTERS below). What the bridge reports, and why:
// * max_size -> chunkSize, overlap -> chunkOverlap, and lengthFunction counts code points, so
//   the handshake says unit "chars" and max_size means what it means for every Python adapter.
//   (The library's default lengthFunction is `.length`, UTF-16 code units; with it a chunk of
//   astral text would hold fewer characters than max_size, never more.)
// * No offsets: createDocuments gives each chunk `metadata.loc.lines` {from, to} and nothing
//   else, so a chunk is its text plus line_start/line_end from those; the contract places the
//   bare text in the document itself. Computing offsets here would hide the library's bugs.
// * The library's constructor refuses a config (it throws when chunkOverlap >= chunkSize): that
//   is an error of type "config". Anything thrown while splitting is a "crash".
// * The library's own output goes to stderr only: console.log is redirected there, so nothing
//   but protocol lines reaches stdout.
import { createInterface } from "node:readline";

import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGES = `npm ci --prefix ${dirname(fileURLToPath(import.meta.url))}`;

/** Splitter name -> (library module, options) -> a splitter instance. */
const SPLITTERS = {
  recursive: (lib, options) => new lib.RecursiveCharacterTextSplitter(options),
  character: (lib, options) => new lib.CharacterTextSplitter(options),
  markdown: (lib, options) => new lib.MarkdownTextSplitter(options),
  latex: (lib, options) => new lib.LatexTextSplitter(options),
  python: (lib, options) => lib.RecursiveCharacterTextSplitter.fromLanguage("python", options),
  js: (lib, options) => lib.RecursiveCharacterTextSplitter.fromLanguage("js", options),
};

/** The number of code points of `text` (what unit "chars" counts). */
export function codePoints(text) {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** A config the library refused (its constructor threw). */
class ConfigError extends Error {}

/** A splitter of kind `name` for one call; the library's refusal becomes a ConfigError. */
function makeSplitter(lib, name, maxSize, overlap) {
  const options = { chunkSize: maxSize, chunkOverlap: overlap, lengthFunction: codePoints };
  try {
    return SPLITTERS[name](lib, options);
  } catch (error) {
    throw new ConfigError(String(error && error.message));
  }
}

/** The chunk records of one document: text and the library's line numbers, nothing else. */
async function split(lib, name, document, maxSize, overlap) {
  const splitter = makeSplitter(lib, name, maxSize, overlap);
  const docs = await splitter.createDocuments([document]);
  return docs.map((doc) => ({
    text: doc.pageContent,
    line_start: doc.metadata.loc.lines.from,
    line_end: doc.metadata.loc.lines.to,
  }));
}

/** The reply to one request line. */
async function answer(lib, name, line) {
  let call;
  try {
    call = JSON.parse(line);
  } catch (error) {
    return { id: null, error: { type: "crash", message: `bad request: ${error.message}` } };
  }
  try {
    if (call.op !== "split") throw new Error(`unknown op ${JSON.stringify(call.op)}`);
    if (typeof call.document !== "string") throw new TypeError("document must be a string");
    return { id: call.id, chunks: await split(lib, name, call.document, call.max_size, call.overlap) };
  } catch (error) {
    const type = error instanceof ConfigError ? "config" : "crash";
    const message = type === "config" || !error?.stack ? String(error?.message ?? error) : String(error.stack);
    return { id: call.id, error: { type, message } };
  }
}

/** Exit with a message on stderr (before the handshake: the host reports a usage error). */
function refuse(message) {
  process.stderr.write(`bridge.mjs: ${message}\n`);
  process.exit(2);
}

/** The library, or a refusal saying how to install it. */
async function loadLibrary() {
  try {
    return await import("@langchain/textsplitters");
  } catch (error) {
    return refuse(`run ${PACKAGES}: @langchain/textsplitters is not installed (${error.code})`);
  }
}

async function main() {
  const name = process.argv[2];
  if (!Object.hasOwn(SPLITTERS, name ?? "")) {
    refuse(`usage: node bridge.mjs SPLITTER, one of: ${Object.keys(SPLITTERS).join(", ")}`);
  }
  const lib = await loadLibrary();
  console.log = (...args) => console.error(...args);
  const out = process.stdout;
  out.write(`${JSON.stringify({ chunk_contract: 1, unit: "chars", offsets: "utf16" })}\n`);
  const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
  let queue = Promise.resolve(); // one call at a time, replies in request order
  input.on("line", (line) => {
    queue = queue.then(async () => out.write(`${JSON.stringify(await answer(lib, name, line))}\n`));
  });
  input.on("close", () => queue.then(() => process.exit(0)));
}

main();
