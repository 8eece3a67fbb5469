// The pages module's db module: createTables()/dropTables(), called only by its
// migration. Pages reference app_auth_users, so they are created after the auth
// tables and dropped before them.
import type { Knex } from 'knex';

export const PAGES_TABLE = 'app_pages';
export const MEDIA_TABLE = 'app_pages_media';
/** Sibling slugs are unique; root pages (parent NULL) are siblings of one another. */
export const SIBLING_SLUG_INDEX = 'app_pages_sibling_slug_unique';

export async function createTables(knex: Knex): Promise<void> {
  await knex.schema.createTable(PAGES_TABLE, (table) => {
    table.increments('id').primary();
    // NO ACTION (the default): a page with children cannot be deleted alone, while
    // one DELETE removing a whole subtree passes (checked at the end of the statement).
    table.integer('parent_id').nullable().references('id').inTable(PAGES_TABLE);
    table.string('title', 300).notNullable();
    table.string('slug', 100).notNullable();
    table.string('template', 64).notNullable().defaultTo('default');
    table.jsonb('blocks').notNullable().defaultTo('[]');
    table.jsonb('seo').notNullable().defaultTo('{}');
    table.string('visibility', 10).notNullable().defaultTo('public');
    table.integer('author_id').nullable().references('id').inTable('app_auth_users').onDelete('SET NULL');
    table.integer('updated_by').nullable().references('id').inTable('app_auth_users').onDelete('SET NULL');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`ALTER TABLE ${PAGES_TABLE} ADD CONSTRAINT app_pages_visibility_check CHECK (visibility IN ('public', 'private'))`);
  await knex.raw(`ALTER TABLE ${PAGES_TABLE} ADD CONSTRAINT app_pages_not_own_parent CHECK (parent_id IS NULL OR parent_id <> id)`);
  // The expression treats NULL (root) as parent 0, so root slugs are unique too. The
  // public lookups use the same expression, so this index also serves every step of a
  // path resolution.
  await knex.raw(`CREATE UNIQUE INDEX ${SIBLING_SLUG_INDEX} ON ${PAGES_TABLE} ((COALESCE(parent_id, 0)), slug)`);
  await knex.raw(`CREATE INDEX app_pages_children_by_title ON ${PAGES_TABLE} ((COALESCE(parent_id, 0)), title, id)`);
  // The foreign key's own checks (deleting a parent) look children up by plain parent_id.
  await knex.raw(`CREATE INDEX app_pages_parent_id ON ${PAGES_TABLE} (parent_id)`);
  await knex.raw(`CREATE INDEX app_pages_visibility_title ON ${PAGES_TABLE} (visibility, title, id)`);

  await knex.schema.createTable(MEDIA_TABLE, (table) => {
    table.increments('id').primary();
    // Generated name of the stored file under the upload directory.
    table.string('filename', 255).notNullable().unique();
    table.string('original_name', 255).notNullable().defaultTo('');
    table.string('mime_type', 100).notNullable();
    table.integer('size').notNullable();
    table.string('alt', 500).notNullable().defaultTo('');
    table.string('caption', 1000).notNullable().defaultTo('');
    table.integer('uploaded_by').nullable().references('id').inTable('app_auth_users').onDelete('SET NULL');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function dropTables(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists(MEDIA_TABLE);
  await knex.schema.dropTableIfExists(PAGES_TABLE);
}
