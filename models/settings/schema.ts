// The settings module's table, made by its own migrations (migrations/settings/, frozen
// DDL); createTables/dropTables run or undo exactly those, as the pages module's do.
import type { Knex } from 'knex';
import { migrateDirectoryDown, migrateDirectoryUp, moduleMigrationsDirectory } from '../../lib/migrations.js';

export const SETTINGS_TABLE = 'app_site_settings';

/** The built-in theme chosen until the site chooses another (themes/default). */
export const DEFAULT_THEME = 'default';

/** Runs the module's pending migrations (migrations/settings/, after the pages module's); returns their names. */
export function createTables(knex: Knex): Promise<string[]> {
  return migrateDirectoryUp(knex, moduleMigrationsDirectory('settings'));
}

/** Undoes the module's applied migrations, newest first; returns their names. */
export function dropTables(knex: Knex): Promise<string[]> {
  return migrateDirectoryDown(knex, moduleMigrationsDirectory('settings'));
}
