// Prisma 7's CLI configuration (`prisma generate`, through scripts/db.mjs). Migrations use Prisma 6.19's CLI and
// prisma/migrate.config.ts instead: see the head of scripts/db.mjs and docs/dependencies.md.
// DATABASE_URL picks the provider: postgresql://... → PostgreSQL, anything else → the embedded SQLite file.
import path from "node:path";
import { defineConfig } from "prisma/config";

const url = process.env.DATABASE_URL ?? "file:./data/toolgate.db";
const provider = /^postgres(ql)?:\/\//.test(url) ? "postgres" : "sqlite";

export default defineConfig({
  schema: path.join("prisma", provider, "schema.prisma"),
  migrations: { path: path.join("prisma", provider, "migrations") },
});
