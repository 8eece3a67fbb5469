// The admin search over page titles, frozen as of this version. A search reads this
// index alone, in title order, and stops as soon as it has a page of matches: a common
// word answers at once, a rare one reads 100,000 small entries instead of the rows
// that carry the blocks (there is no trigram index: pg_trgm is an extension the
// operator would have to install).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX app_pages_title_search ON app_pages (title, id) INCLUDE (slug, visibility)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS app_pages_title_search');
}
