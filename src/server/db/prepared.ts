import crypto from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import { getTableColumns, type Table } from 'drizzle-orm';
import type { Database } from './client';

/** A read statement every request runs, planned once per connection. */
export interface PreparedStatement {
  /** Rows as objects keyed by column name, values as the driver parses them (keep to int, text, bool). */
  run(params: unknown[]): Promise<Array<Record<string, unknown>>>;
}

/** Statements already PREPAREd on each PGlite (two apps on one PGlite, in tests, share its one connection). */
const preparedOnPglite = new WeakMap<PGlite, Map<string, Promise<string>>>();

/**
 * A statement planned once instead of at every execution. node-postgres keeps a named statement prepared per
 * pooled connection. PGlite sends every query unnamed, so its server would parse and plan it each time, on the
 * app's own thread: here it is PREPAREd once and run with EXECUTE (simple protocol), its parameters written as
 * SQL literals (`toSqlLiteral`). `text` must type its parameters itself (`$1::text[]`).
 */
export function createPreparedStatement(database: Database, text: string): PreparedStatement {
  const name = `ll_${crypto.createHash('sha256').update(text).digest('hex').slice(0, 20)}`;
  if (database.kind !== 'pglite') {
    const pool = database.pool;
    if (!pool) throw new Error('PostgreSQL database without a pool');
    return {
      async run(params) {
        const result = await pool.query<Record<string, unknown>>({ name, text, values: params });
        return result.rows;
      },
    };
  }
  const pglite = (database.db as unknown as { $client: PGlite }).$client;
  let prepared = preparedOnPglite.get(pglite);
  if (!prepared) {
    prepared = new Map();
    preparedOnPglite.set(pglite, prepared);
  }
  const statements = prepared;
  const prepare = (): Promise<string> => {
    let ready = statements.get(text);
    if (!ready) {
      ready = pglite.query(`PREPARE ${name} AS ${text}`).then(() => name);
      // A failed PREPARE is tried again next time rather than remembered.
      ready.catch(() => statements.delete(text));
      statements.set(text, ready);
    }
    return ready;
  };
  return {
    async run(params) {
      await prepare();
      const args = params.length > 0 ? `(${params.map(toSqlLiteral).join(', ')})` : '';
      const [result] = await pglite.exec(`EXECUTE ${name}${args}`);
      return (result?.rows ?? []) as Array<Record<string, unknown>>;
    },
  };
}

/**
 * A parameter as an SQL literal (standard_conforming_strings is on: only quotes are doubled). Arrays become
 * array literals; the prepared statement's own parameter types (`$1::text[]`) give them their type.
 */
export function toSqlLiteral(value: unknown): string {
  if (Array.isArray(value)) return quote(`{${value.map(toArrayElement).join(',')}}`);
  if (typeof value === 'string') return quote(value);
  return toScalar(value);
}

function toScalar(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('Not a finite number');
    return String(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  throw new Error(`Unsupported parameter type: ${typeof value}`);
}

function quote(text: string): string {
  if (text.includes('\0')) throw new Error('A text parameter cannot contain NUL');
  return `'${text.replace(/'/g, "''")}'`;
}

function toArrayElement(value: unknown): string {
  if (typeof value === 'string') return `"${value.replace(/[\\"]/g, '\\$&')}"`;
  return toScalar(value);
}

/**
 * A table row from its `row_to_json` form, typed as Drizzle types it (`$inferSelect`): one JSON text column
 * is far cheaper for PGlite to hand over than dozens of columns. Each column goes through Drizzle's own
 * driver mapping; numeric columns with a scale keep PostgreSQL's text form ("1.30", not "1.3").
 */
export function readJsonRow<T extends Table>(table: T, json: Record<string, unknown>): T['$inferSelect'] {
  const row: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const raw = json[column.name];
    if (raw === null || raw === undefined) {
      row[key] = null;
      continue;
    }
    const scale = (column as { scale?: number }).scale;
    row[key] =
      column.columnType === 'PgNumeric' && typeof raw === 'number' && scale !== undefined
        ? raw.toFixed(scale)
        : column.mapFromDriverValue(raw);
  }
  return row as T['$inferSelect'];
}
