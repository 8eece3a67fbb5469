import { db } from '../../lib/db.js';

/** Counts the SQL statements issued on the pool while `run` executes. */
export async function countStatements<T>(run: () => Promise<T>): Promise<{ result: T; count: number; sql: string[] }> {
  const sql: string[] = [];
  const listener = (query: { sql: string }) => sql.push(query.sql);
  db().on('query', listener);
  try {
    const result = await run();
    return { result, count: sql.length, sql };
  } finally {
    db().removeListener('query', listener);
  }
}
