import "server-only";
// The default witness: a file of JSON lines under the data directory, only ever appended to (O_APPEND, one write per
// entry, flushed to disk before the write counts). It is outside the database, so access to the database alone
// (SQL injection, a stolen database password, a restored dump) cannot rewrite it; an operator can make it
// append-only for the service's user too (`chattr +a`) or ship it elsewhere. Several processes may append to one
// file: each entry is one write of one line, far below the size a local file system could interleave.
import fs from "node:fs/promises";
import path from "node:path";
import { readWitnessEntry, type AuditWitness, type WitnessEntry } from "./witness";

const CHUNK = 64 * 1024;

export class FileWitness implements AuditWitness {
  readonly label: string;
  constructor(readonly file: string) {
    // Shown to admins and in API answers: the file's name only, never a host path (the full path is in the configuration).
    this.label = `file ${path.basename(file)}`;
  }

  async append(entry: WitnessEntry): Promise<void> {
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    const handle = await fs.open(this.file, "a", 0o600);
    try {
      await handle.write(`${JSON.stringify(entry)}\n`);
      await handle.datasync();
    } finally {
      await handle.close();
    }
  }

  /** Reads the file backwards, a chunk at a time, until the last valid entry of this log. */
  async latest(logId: string): Promise<WitnessEntry | null> {
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(this.file, "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
    try {
      let end = (await handle.stat()).size;
      let carry = Buffer.alloc(0); // the start of a line whose beginning is in an earlier chunk
      while (end > 0) {
        const start = Math.max(0, end - CHUNK);
        const chunk = Buffer.alloc(end - start);
        await handle.read(chunk, 0, chunk.length, start);
        const text = Buffer.concat([chunk, carry]);
        const lines = text.toString("utf8").split("\n");
        // The first piece may be cut: keep it for the next (earlier) chunk, unless this is the file's start.
        carry = start > 0 ? Buffer.from(lines.shift() ?? "", "utf8") : Buffer.alloc(0);
        for (let i = lines.length - 1; i >= 0; i--) {
          const found = parseLine(lines[i]!, logId);
          if (found) return found;
        }
        end = start;
      }
      return carry.length ? parseLine(carry.toString("utf8"), logId) : null;
    } finally {
      await handle.close();
    }
  }
}

function parseLine(line: string, logId: string): WitnessEntry | null {
  if (!line.trim() || !line.includes(logId)) return null;
  try {
    const entry = readWitnessEntry(JSON.parse(line));
    return entry && entry.logId === logId ? entry : null;
  } catch {
    return null; // a torn or foreign line
  }
}
