// Unit tests import modules that load the generated Prisma clients (lib/db/client.ts): generate them first when
// they are missing or stale, so `npx vitest run --project unit` works on a fresh checkout.
import { execFileSync } from "node:child_process";
import path from "node:path";

export default function setup() {
  const root = path.resolve(__dirname, "../..");
  execFileSync("node", [path.join(root, "scripts/lib/ensure-clients.mjs")], { cwd: root, stdio: "inherit" });
}
