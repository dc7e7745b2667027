// One-time recovery codes for an admin: `npm run recovery-codes -- admin@example.com`. Prints ten codes once (only
// their hashes are stored; a new set voids the old one). Each signs the admin in once, typed into the password
// field, whatever the sign-in throttle says (lib/auth/recovery-codes.ts). Keep them offline.
import { issueRecoveryCodes } from "@/lib/auth/recovery-codes";

async function main() {
  const email = process.argv[2];
  if (!email) {
    console.error("usage: npm run recovery-codes -- ADMIN_EMAIL");
    process.exit(2);
  }
  const codes = await issueRecoveryCodes({ email });
  console.log(`[toolgate] recovery codes for ${email} (each works once; earlier ones no longer work):`);
  for (const code of codes) console.log(code);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`[toolgate] ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
