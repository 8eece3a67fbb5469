// What the first run's «Commencer avec un site d'exemple» made (services/pages-sample-site.ts):
// one row per page (`page`, its id), media (`media`, its id) and menu (`menu`, its name),
// and for a menu the items it wrote, so that «Supprimer le contenu d'exemple» removes
// exactly that and nothing a person made since (a menu edited after it is left as edited).
// Frozen as of this version (nothing imported from the module).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE app_pages_sample_content (
    kind varchar(16) NOT NULL CONSTRAINT app_pages_sample_content_kind CHECK (kind IN ('page', 'media', 'menu')),
    ref varchar(64) NOT NULL,
    state jsonb,
    CONSTRAINT app_pages_sample_content_pkey PRIMARY KEY (kind, ref)
  )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS app_pages_sample_content');
}
