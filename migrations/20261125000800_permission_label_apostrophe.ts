// The label of admin.access as the permission screens show it, with the French
// apostrophe (’) instead of the straight one the first migration seeded.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE app_auth_permissions SET label = 'Accéder à l’administration' WHERE key = 'admin.access'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE app_auth_permissions SET label = 'Accéder à l''administration' WHERE key = 'admin.access'`);
}
