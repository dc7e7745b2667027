// Reads a database's structure (tables, columns, indexes, foreign keys) into a normalised, comparable form.
// Used to prove that the migrations build exactly the schema that schema.base.prisma describes. Columns are
// compared as a set: ALTER TABLE appends a column where CREATE TABLE would list it in the model's order, and
// the order of columns means nothing to Prisma or to a query.
import Database from "better-sqlite3";
import { Client } from "pg";

export type Catalog = Record<string, { columns: string[]; indexes: string[]; foreignKeys: string[] }>;

export function sqliteCatalog(file: string): Catalog {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' AND name != '_prisma_migrations' ORDER BY name",
      )
      .all() as Array<{ name: string }>;
    const catalog: Catalog = {};
    for (const { name } of tables) {
      const columns = (db.prepare(`PRAGMA table_info("${name}")`).all() as Array<Record<string, unknown>>).map(
        (c) => `${c.name} ${c.type} notnull=${c.notnull} default=${c.dflt_value} pk=${c.pk}`,
      );
      const indexes = (db.prepare(`PRAGMA index_list("${name}")`).all() as Array<{ name: string; unique: number }>).map(
        (i) => {
          const cols = (db.prepare(`PRAGMA index_info("${i.name}")`).all() as Array<{ name: string }>).map(
            (c) => c.name,
          );
          return `${i.name} unique=${i.unique} (${cols.join(",")})`;
        },
      );
      const foreignKeys = (
        db.prepare(`PRAGMA foreign_key_list("${name}")`).all() as Array<Record<string, unknown>>
      ).map((f) => `${f.from} -> ${f.table}.${f.to} on delete ${f.on_delete} on update ${f.on_update}`);
      catalog[name] = { columns: columns.sort(), indexes: indexes.sort(), foreignKeys: foreignKeys.sort() };
    }
    return catalog;
  } finally {
    db.close();
  }
}

export function applySqliteScript(file: string, sql: string): void {
  const db = new Database(file);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

export async function postgresCatalog(url: string): Promise<Catalog> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const cols = await client.query(
      `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name != '_prisma_migrations' ORDER BY table_name, ordinal_position`,
    );
    const idx = await client.query(
      `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename != '_prisma_migrations'`,
    );
    const fks = await client.query(
      `SELECT conrelid::regclass::text AS table_name, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
       WHERE contype = 'f' AND connamespace = 'public'::regnamespace`,
    );
    const catalog: Catalog = {};
    const entry = (t: string) => (catalog[t.replace(/"/g, "")] ??= { columns: [], indexes: [], foreignKeys: [] });
    for (const c of cols.rows)
      entry(c.table_name).columns.push(
        `${c.column_name} ${c.data_type} nullable=${c.is_nullable} default=${c.column_default}`,
      );
    for (const i of idx.rows) entry(i.tablename).indexes.push(`${i.indexname}: ${i.indexdef}`);
    for (const f of fks.rows) entry(f.table_name).foreignKeys.push(`${f.conname}: ${f.def}`);
    for (const t of Object.values(catalog)) {
      t.columns.sort();
      t.indexes.sort();
      t.foreignKeys.sort();
    }
    return catalog;
  } finally {
    await client.end();
  }
}

export async function applyPostgresScript(url: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
