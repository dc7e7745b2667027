// npm run audit:verify [-- --checkpoint FILE ...] [--export FILE] [--witness off|file:PATH|URL]
// Verifies the audit chain of DATABASE_URL with the audit key (AUDIT_KEY or data/audit-key): every row's keyed
// hash and link, the signed checkpoint stored apart from the rows, the latest checkpoint of the witness outside the
// database (AUDIT_WITNESS, by default data/audit-witness.jsonl; --witness names another), and any checkpoints
// exported earlier (a file of JSON lines, as --export appends them). Exits 0 when intact, 1 when not, 2 on a usage error.
import fs from "node:fs";
import { configuredWitness, verifyAuditWithWitness } from "@/lib/audit/anchor";
import { exportAuditCheckpoint, type AuditCheckpoint } from "@/lib/db/audit";
import { getDb } from "@/lib/db/client";

const USAGE = "usage: audit:verify [--checkpoint FILE ...] [--export FILE] [--witness off|file:PATH|URL]";

function parseArgs(argv: string[]): { checkpoints: string[]; exportTo?: string } {
  const checkpoints: string[] = [];
  let exportTo: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if ((flag === "--checkpoint" || flag === "--export" || flag === "--witness") && value) {
      if (flag === "--checkpoint") checkpoints.push(value);
      else if (flag === "--witness")
        process.env.AUDIT_WITNESS = value; // read by lib/config, before anything loads it
      else exportTo = value;
      i++;
    } else throw new Error(`unknown argument ${flag}; ${USAGE}`);
  }
  return { checkpoints, exportTo };
}

function readCheckpoints(file: string): AuditCheckpoint[] {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as AuditCheckpoint);
}

async function main(): Promise<number> {
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  const checkpoints = args.checkpoints.flatMap(readCheckpoints);
  const result = await verifyAuditWithWitness({ witness: configuredWitness(), checkpoints });
  console.log(JSON.stringify(result));
  if (result.ok && args.exportTo) {
    const head = await exportAuditCheckpoint();
    if (head) fs.appendFileSync(args.exportTo, `${JSON.stringify(head)}\n`);
    console.log(
      head
        ? `checkpoint at seq ${head.seq} (${head.count} rows) appended to ${args.exportTo}`
        : "the log is empty: nothing to export",
    );
  }
  return result.ok ? 0 : 1;
}

main()
  .then(async (code) => {
    await getDb().$disconnect();
    process.exit(code);
  })
  .catch((error) => {
    console.error(error);
    process.exit(2);
  });
