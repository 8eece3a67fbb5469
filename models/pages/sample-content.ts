// The record of the sample site (app_pages_sample_content): what the first run's sample
// made, so that its removal takes exactly that (services/pages-sample-site.ts).
import type { AppContext } from '../../lib/context.js';
import { MENUS_TABLE } from './menus.js';
import { PAGES_TABLE } from './schema.js';

const SAMPLE_TABLE = 'app_pages_sample_content';

export interface SampleRow {
  kind: 'page' | 'media' | 'menu';
  ref: string;
  /** For a menu: its items as the sample wrote them (an edit since changes them). */
  state?: unknown;
}

export async function recordSampleContent(ctx: AppContext, rows: SampleRow[]): Promise<void> {
  await ctx
    .db(SAMPLE_TABLE)
    .insert(rows.map(({ kind, ref, state }) => ({ kind, ref, state: state === undefined ? null : JSON.stringify(state) })))
    .onConflict(['kind', 'ref'])
    .merge();
}

export async function sampleContent(ctx: AppContext): Promise<{ pages: number[]; media: number[]; menus: Array<{ ref: string; state: unknown }> }> {
  const rows = await ctx.db(SAMPLE_TABLE).select<Array<{ kind: string; ref: string; state: unknown }>>('kind', 'ref', 'state');
  const ids = (kind: string) => rows.filter((row) => row.kind === kind).map((row) => Number(row.ref));
  return {
    pages: ids('page'),
    media: ids('media'),
    menus: rows.filter((row) => row.kind === 'menu').map((row) => ({ ref: row.ref, state: row.state })),
  };
}

export async function forgetSampleContent(ctx: AppContext): Promise<void> {
  await ctx.db(SAMPLE_TABLE).delete();
}

export async function pageExists(ctx: AppContext, id: number): Promise<boolean> {
  return (await ctx.db(PAGES_TABLE).where({ id }).first('id')) !== undefined;
}

/** Deletes the menu while its items are still `items` (an edit since keeps it). */
export async function removeMenuIfUnchanged(ctx: AppContext, name: string, items: unknown): Promise<void> {
  await ctx
    .db(MENUS_TABLE)
    .where({ name })
    .whereRaw('items = ?::jsonb', [JSON.stringify(items)])
    .delete();
}

/**
 * Inside the transaction that deleted pages: drops the «gone» (410) addresses the
 * deletion trigger recorded for them (rows this transaction made: created_at = now()).
 */
export async function forgetAddressesDeletedNow(ctx: AppContext): Promise<void> {
  await ctx.db.raw(`DELETE FROM app_page_redirects WHERE page_id IS NULL AND kind = 'automatic' AND created_at = now()`);
}
