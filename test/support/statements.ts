import type { AppContext } from '../../lib/context.js';

/** Counts the SQL statements issued on the application's pool while `run` executes. */
export async function countStatements<T>(ctx: AppContext, run: () => Promise<T>): Promise<{ result: T; count: number; sql: string[] }> {
  const sql: string[] = [];
  const listener = (query: { sql: string }) => sql.push(query.sql);
  ctx.db.on('query', listener);
  try {
    const result = await run();
    return { result, count: sql.length, sql };
  } finally {
    ctx.db.removeListener('query', listener);
  }
}
