// The admin role's description as the first migration seeded it repeated the role's
// label («Administrateur», shown beside it since role labels exist) with a plain space
// before the colon. A description the owner has changed since is left alone.
import type { Knex } from 'knex';

const SEEDED = 'Administrateur : toutes les permissions';
const NOW = 'Toutes les permissions, y compris celles des modules ajoutés plus tard';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE app_auth_roles SET description = ? WHERE name = 'admin' AND description = ?`, [NOW, SEEDED]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE app_auth_roles SET description = ? WHERE name = 'admin' AND description = ?`, [SEEDED, NOW]);
}
