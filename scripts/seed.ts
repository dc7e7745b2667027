// Seeds the demo users. They are only created on the embedded SQLite database, or anywhere when
// SEED_DEMO_USERS=true; existing users are left as they are (running it again keeps data).
import { loadConfig } from "@/lib/config";
import { upsertUser } from "@/lib/db/users";
import { hashPassword } from "@/lib/auth/password";
import type { Role } from "@/lib/policy/types";

export const DEMO_USERS: Array<{ email: string; name: string; roles: Role[] }> = [
  { email: "admin@example.com", name: "Ada Admin", roles: ["member", "owner", "admin"] },
  { email: "owner@example.com", name: "Olivia Owner", roles: ["member", "owner"] },
  { email: "member@example.com", name: "Max Member", roles: ["member"] },
];

export async function seedDemoUsers(): Promise<string[]> {
  const config = loadConfig();
  const wanted =
    config.SEED_DEMO_USERS === "true" || (config.SEED_DEMO_USERS === "auto" && config.databaseProvider === "sqlite");
  if (!wanted) return [];
  const passwordHash = await hashPassword(config.DEMO_PASSWORD);
  const created: string[] = [];
  for (const user of DEMO_USERS) {
    const result = await upsertUser({ ...user, passwordHash });
    if (result.created) created.push(user.email);
  }
  return created;
}

async function main() {
  const config = loadConfig();
  const created = await seedDemoUsers();
  if (created.length) console.log(`[toolgate] created demo users: ${created.join(", ")}`);
  const wanted =
    config.SEED_DEMO_USERS === "true" || (config.SEED_DEMO_USERS === "auto" && config.databaseProvider === "sqlite");
  if (wanted) {
    console.log(
      `[toolgate] demo accounts: admin@example.com, owner@example.com, member@example.com — password: ${config.DEMO_PASSWORD}`,
    );
  }
}

if (process.argv[1]?.endsWith("seed.ts")) {
  main().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
