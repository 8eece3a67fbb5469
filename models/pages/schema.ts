// The pages module's db module (SPEC `createTables`, `dropTables`): its tables are
// made by its own migrations (migrations/pages/, frozen DDL that imports nothing from
// here); these two run or undo exactly those migrations, recorded in the same history
// as `npm run migrate`, so either way gives the same schema.
import type { Knex } from 'knex';
import { migrateDirectoryDown, migrateDirectoryUp, moduleMigrationsDirectory } from '../../lib/migrations.js';

export const PAGES_TABLE = 'app_pages';
export const MEDIA_TABLE = 'app_pages_media';
/** Sibling slugs are unique; root pages (parent NULL) are siblings of one another. */
export const SIBLING_SLUG_INDEX = 'app_pages_sibling_slug_unique';

/** Where the module's migrations live (compiled or sources, like the core's). */
export function pagesMigrationsDirectory(): string {
  return moduleMigrationsDirectory('pages');
}

/** Applies the module's pending migrations; returns their names. */
export function createTables(knex: Knex): Promise<string[]> {
  return migrateDirectoryUp(knex, pagesMigrationsDirectory());
}

/** Undoes the module's applied migrations, newest first; returns their names. */
export function dropTables(knex: Knex): Promise<string[]> {
  return migrateDirectoryDown(knex, pagesMigrationsDirectory());
}
