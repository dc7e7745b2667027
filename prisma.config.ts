// Prisma CLI configuration: JavaScript schema engine + driver adapter (no engine binaries to download).
// DATABASE_URL picks the provider: postgresql://... → PostgreSQL, anything else → the embedded SQLite file.
import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";

const url = process.env.DATABASE_URL ?? "file:./data/toolgate.db";
const provider = /^postgres(ql)?:\/\//.test(url) ? "postgres" : "sqlite";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: path.join("prisma", provider, "schema.prisma"),
  migrations: { path: path.join("prisma", provider, "migrations") },
  adapter: async () =>
    provider === "postgres" ? new PrismaPg({ connectionString: url }) : new PrismaBetterSQLite3({ url }),
});
