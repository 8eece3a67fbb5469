import type { Knex } from 'knex';
import { removePermissionSection, seedPermissionSections } from '../models/auth/schema.js';
import { pagesManifest } from '../models/pages/manifest.js';
import { createTables, dropTables } from '../models/pages/schema.js';

// Runs after the auth tables (pages reference app_auth_users) and is undone before them.
export async function up(knex: Knex): Promise<void> {
  await createTables(knex);
  await seedPermissionSections(knex, pagesManifest.permissionSections);
}

export async function down(knex: Knex): Promise<void> {
  for (const section of pagesManifest.permissionSections) await removePermissionSection(knex, section.key);
  await dropTables(knex);
}
