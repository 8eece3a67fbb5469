// A person's choice about the emails of the review workflow (issue 26, item 5): pages
// submitted to them for review, and the answer to their own submissions. On by default
// (a new reviewer must hear of a waiting page); turned off on /account.
// Frozen as of this version.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE app_auth_users ADD COLUMN review_emails boolean NOT NULL DEFAULT true');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE app_auth_users DROP COLUMN IF EXISTS review_emails');
}
