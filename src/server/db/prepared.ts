import type { PGlite, QueryOptions, Results } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import type { Database, Db } from './client';
import * as schema from './schema/index.ts';

/**
 * A Drizzle handle for the statements every request runs, planned once instead of at every execution.
 *
 * node-postgres already keeps a named statement (Drizzle's `.prepare(name)`) prepared per connection. PGlite
 * sends every query unnamed, so the server parses and plans it each time: for a join of several tables that
 * is most of its cost, on the app's own thread. Here each distinct statement is PREPAREd once on PGlite's one
 * connection and then run with EXECUTE (simple protocol), its parameters written as SQL literals; Drizzle maps
 * the rows exactly as it would its own (the columns come back in the same order). Use it for read statements
 * with a fixed shape only; transactions are not supported.
 */
let handles = 0;

export function createPreparedDb(database: Database): Db {
  if (database.kind !== 'pglite') return database.db;
  const pglite = (database.db as unknown as { $client: PGlite }).$client;
  const names = new Map<string, Promise<string>>();
  // Two apps on one PGlite (tests of two instances) share its connection, so their names must differ.
  handles += 1;
  const prefix = `ll_prepared_${handles}_`;

  function prepare(text: string): Promise<string> {
    let name = names.get(text);
    if (!name) {
      const chosen = `${prefix}${names.size + 1}`;
      name = pglite.query(`PREPARE ${chosen} AS ${text}`).then(() => chosen);
      // A failed PREPARE is tried again next time rather than remembered.
      name.catch(() => names.delete(text));
      names.set(text, name);
    }
    return name;
  }

  const client = {
    async query(text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results> {
      const name = await prepare(text);
      const args = params.length > 0 ? `(${params.map(toSqlLiteral).join(', ')})` : '';
      const [result] = await pglite.exec(`EXECUTE ${name}${args}`, options);
      if (!result) throw new Error('EXECUTE returned no result');
      return result;
    },
  };
  return drizzlePglite(client as unknown as PGlite, { schema }) as unknown as Db;
}

/**
 * A parameter as an SQL literal (standard_conforming_strings is on: only quotes are doubled). Arrays become
 * array literals; the prepared statement's own parameter types (`$1::text[]`) give them their type.
 */
export function toSqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('Not a finite number');
    return String(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return quote(value);
  if (value instanceof Date) return quote(value.toISOString());
  if (Array.isArray(value)) return quote(`{${value.map(toArrayElement).join(',')}}`);
  throw new Error(`Unsupported parameter type: ${typeof value}`);
}

function quote(text: string): string {
  if (text.includes('\0')) throw new Error('A text parameter cannot contain NUL');
  return `'${text.replace(/'/g, "''")}'`;
}

function toArrayElement(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('Not a finite number');
    return String(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return `"${value.replace(/[\\"]/g, '\\$&')}"`;
  throw new Error(`Unsupported array element type: ${typeof value}`);
}
