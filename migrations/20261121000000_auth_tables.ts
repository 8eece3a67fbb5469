import type { Knex } from 'knex';
import { createTables, dropTables } from '../models/auth/schema.js';

export async function up(knex: Knex): Promise<void> {
  await createTables(knex);
}

export async function down(knex: Knex): Promise<void> {
  await dropTables(knex);
}
