// npm run audit:reanchor -- --reason "restored from the 03:00 backup" [--actor NAME] [--witness off|file:PATH|URL]
// After a restore from a backup, the audit log ends before the witness's latest checkpoint and verification says so
// (as it must: that is what a rollback looks like). This records the restore: the chain must verify on its own, an
// `audit.reanchored` row names who, why and what the witness held, and a signed re-anchor entry goes to the witness
// (lib/audit/anchor.ts). Exits 0 when re-anchored, 1 when refused, 2 on a usage error.
import os from "node:os";
import { configuredWitness, reanchorAudit } from "@/lib/audit/anchor";
import { getDb } from "@/lib/db/client";

const USAGE = 'usage: audit:reanchor --reason "why" [--actor NAME] [--witness off|file:PATH|URL]';

function parseArgs(argv: string[]): { reason: string; actor: string } {
  let reason = "";
  let actor = `${os.userInfo().username}@${os.hostname()}`;
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(USAGE);
    if (flag === "--reason") reason = value;
    else if (flag === "--actor") actor = value;
    else if (flag === "--witness") process.env.AUDIT_WITNESS = value;
    else throw new Error(`unknown argument ${flag}; ${USAGE}`);
  }
  if (!reason.trim()) throw new Error(`a reason is required; ${USAGE}`);
  return { reason, actor };
}

async function main(): Promise<number> {
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  try {
    const entry = await reanchorAudit({ ...args, witness: configuredWitness() });
    console.log(
      JSON.stringify({ ok: true, reanchored: { seq: entry.seq, count: entry.count, previous: entry.previous } }),
    );
    return 0;
  } catch (error) {
    console.log(JSON.stringify({ ok: false, problem: (error as Error).message }));
    return 1;
  }
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
