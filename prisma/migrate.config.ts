// Prisma 6.19's CLI (package prisma-migrate-wasm), for migrate deploy and diff only: its schema engine is
// WebAssembly and reaches the database through the app's driver adapter, so no engine binary is downloaded.
// scripts/db.mjs passes this file and TOOLGATE_MIGRATE_SCHEMA, the schema with the `url` that 6.19 requires.
// DATABASE_URL picks the provider: postgresql://... → PostgreSQL, anything else → the embedded SQLite file.
import path from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";

const url = process.env.DATABASE_URL ?? "file:./data/toolgate.db";
const provider = /^postgres(ql)?:\/\//.test(url) ? "postgres" : "sqlite";
const schema = process.env.TOOLGATE_MIGRATE_SCHEMA;
if (!schema) throw new Error("run migrations through scripts/db.mjs (it sets TOOLGATE_MIGRATE_SCHEMA)");

const config = {
  experimental: { adapter: true },
  engine: "js",
  schema,
  migrations: { path: path.join(__dirname, provider, "migrations") },
  adapter: async () =>
    provider === "postgres" ? new PrismaPg({ connectionString: url }) : new PrismaBetterSqlite3({ url }),
};

export default config;
