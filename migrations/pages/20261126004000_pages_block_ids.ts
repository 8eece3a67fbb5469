// Every stored block gets a stable id, frozen as of this version (nothing imported from
// the module). A merge of two saves matches blocks by id; new blocks get a random one
// from the server. Blocks stored before have none: each gets `b<position>` (1-based) in
// its own page row and revision, so a page's revisions written before this version name
// the block at one position alike (a merge across them matches by position, as the
// editor always did). A random id is 12 characters, so none can equal these. A block
// whose `id` is not an id of this kind (another writer's number, say) gets one too.
import type { Knex } from 'knex';

// COALESCE: without an id both tests are NULL, and NOT NULL would keep the block as it is.
const VALID = `COALESCE(jsonb_typeof(b->'id') = 'string' AND (b->>'id') ~ '^[a-z0-9][a-z0-9-]{0,35}$', false)`;

function withIds(table: string): string {
  return `UPDATE ${table} SET blocks = (
     SELECT jsonb_agg(CASE WHEN jsonb_typeof(b) = 'object' AND NOT (${VALID}) THEN b || jsonb_build_object('id', 'b' || ord) ELSE b END ORDER BY ord)
     FROM jsonb_array_elements(blocks) WITH ORDINALITY AS e(b, ord))
   WHERE jsonb_typeof(blocks) = 'array' AND EXISTS (
     SELECT 1 FROM jsonb_array_elements(blocks) AS e(b) WHERE jsonb_typeof(b) = 'object' AND NOT (${VALID}))`;
}

function withoutIds(table: string): string {
  return `UPDATE ${table} SET blocks = (
     SELECT jsonb_agg(CASE WHEN jsonb_typeof(b) = 'object' THEN b - 'id' ELSE b END ORDER BY ord)
     FROM jsonb_array_elements(blocks) WITH ORDINALITY AS e(b, ord))
   WHERE jsonb_typeof(blocks) = 'array' AND jsonb_array_length(blocks) > 0`;
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw(withIds('app_pages'));
  await knex.raw(withIds('app_page_revisions'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(withoutIds('app_page_revisions'));
  await knex.raw(withoutIds('app_pages'));
}
