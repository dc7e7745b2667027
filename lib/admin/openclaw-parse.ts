import "server-only";
// Parsing an uploaded openclaw.json without stalling the server. The json5 library is a recursive, character-at-a-
// time parser: 900 KB take 0.3 to 0.5 s of one thread, and deep nesting overflows its stack. So the size and the
// nesting are bounded on the text first (lib/json-depth.ts), a text larger than a few kilobytes is parsed in a
// worker thread (memory- and time-limited; at most two at a time), never on the thread that serves requests, and
// a config with more values than any real one (mapping thousands of agents takes the serving thread seconds) is
// refused before it is mapped.
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { AppError } from "@/lib/errors";
import { json5DepthExceeds, MAX_JSON_DEPTH } from "@/lib/json-depth";
import { parseOpenClawText } from "./openclaw-import";

/** Texts up to this size are parsed inline: a few milliseconds at most. */
const INLINE_CHARS = 16 * 1024;
/** Real configs are a few kilobytes; this leaves room for comments and long descriptions. */
export const MAX_IMPORT_CHARS = 256 * 1024;
/** Objects, arrays and values in the parsed config: real ones have hundreds. */
export const MAX_IMPORT_VALUES = 5_000;
const PARSE_TIMEOUT_MS = 15_000;
const MAX_PARALLEL = 2;

// Plain CommonJS, evaluated by the worker: outside the bundler, json5 loaded from the app's node_modules.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const JSON5 = require(workerData.json5);
function count(root, limit) {
  let n = 0;
  const stack = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (++n > limit) return n;
    if (v !== null && typeof v === "object") for (const k of Object.keys(v)) stack.push(v[k]);
  }
  return n;
}
try {
  const value = JSON5.parse(workerData.text);
  if (count(value, workerData.maxValues) > workerData.maxValues) parentPort.postMessage({ ok: false, tooMany: true });
  else parentPort.postMessage({ ok: true, value });
}
catch (error) { parentPort.postMessage({ ok: false, message: String((error && error.message) || error) }); }
`;

let running = 0;
const waiting: Array<() => void> = [];

async function slot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_PARALLEL) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function json5Path(): string {
  return createRequire(path.join(process.cwd(), "package.json")).resolve("json5");
}

function parseInWorker(text: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { text, json5: json5Path(), maxValues: MAX_IMPORT_VALUES },
      resourceLimits: { maxOldGenerationSizeMb: 128, stackSizeMb: 4 },
    });
    const timer = setTimeout(() => void worker.terminate(), PARSE_TIMEOUT_MS);
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      fn();
    };
    worker.once("message", (m: { ok: boolean; value?: unknown; message?: string; tooMany?: boolean }) =>
      settle(() =>
        m.ok
          ? resolve(m.value)
          : reject(
              m.tooMany
                ? tooManyValues()
                : new AppError(
                    "VALIDATION_FAILED",
                    `the OpenClaw config is not valid JSON5: ${(m.message ?? "").replace(/^JSON5: /, "")}`,
                  ),
            ),
      ),
    );
    worker.once("error", () =>
      settle(() =>
        reject(
          new AppError("VALIDATION_FAILED", "the OpenClaw config could not be parsed within the memory allowed for it"),
        ),
      ),
    );
    worker.once("exit", () =>
      settle(() =>
        reject(
          new AppError(
            "VALIDATION_FAILED",
            `the OpenClaw config could not be parsed within ${PARSE_TIMEOUT_MS / 1000} s`,
          ),
        ),
      ),
    );
  });
}

function tooManyValues(): AppError {
  return new AppError(
    "VALIDATION_FAILED",
    `the OpenClaw config has more than ${MAX_IMPORT_VALUES} values; import it in parts`,
    { maxValues: MAX_IMPORT_VALUES },
  );
}

function valuesExceed(root: unknown, limit: number): boolean {
  let n = 0;
  const stack = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (++n > limit) return true;
    if (v !== null && typeof v === "object")
      for (const k of Object.keys(v)) stack.push((v as Record<string, unknown>)[k]);
  }
  return false;
}

/** The parsed config, or a 4xx naming why not; the serving thread never runs the parser on a large text. */
export async function parseOpenClawUpload(text: string): Promise<unknown> {
  if (text.length > MAX_IMPORT_CHARS)
    throw new AppError(
      "PAYLOAD_TOO_LARGE",
      `the OpenClaw config is ${text.length} characters; at most ${MAX_IMPORT_CHARS} are imported`,
      { maxChars: MAX_IMPORT_CHARS },
    );
  if (json5DepthExceeds(text))
    throw new AppError("VALIDATION_FAILED", `the OpenClaw config nests deeper than ${MAX_JSON_DEPTH} levels`, {
      maxDepth: MAX_JSON_DEPTH,
    });
  if (text.length > INLINE_CHARS) return slot(() => parseInWorker(text));
  const value = parseOpenClawText(text);
  if (valuesExceed(value, MAX_IMPORT_VALUES)) throw tooManyValues();
  return value;
}
