// Withdrawing preview links, frozen as of this version (nothing imported from the module).
//
// - preview_generation: a number each preview link's signature covers; moving it on
//   voids every link made before for the page, without touching SESSION_SECRET.
// - A page made private voids its links too, whatever route changed it (the form, the
//   API, a published draft, the scheduler): a row trigger moves the generation on, and
//   forgets the retention's hold of the page's revisions (preview_until), since no link
//   that named them works any more.
import type { Knex } from 'knex';

const UP = [
  `ALTER TABLE app_pages ADD COLUMN preview_generation integer NOT NULL DEFAULT 0`,
  `CREATE FUNCTION app_pages_void_previews_when_private() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF NEW.visibility = 'private' AND OLD.visibility IS DISTINCT FROM 'private' THEN
       NEW.preview_generation := OLD.preview_generation + 1;
       UPDATE app_page_revisions SET preview_until = NULL WHERE page_id = NEW.id AND preview_until IS NOT NULL;
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER app_pages_void_previews_when_private
     BEFORE UPDATE OF visibility ON app_pages
     FOR EACH ROW EXECUTE FUNCTION app_pages_void_previews_when_private()`,
];

const DOWN = [
  `DROP TRIGGER app_pages_void_previews_when_private ON app_pages`,
  `DROP FUNCTION app_pages_void_previews_when_private()`,
  `ALTER TABLE app_pages DROP COLUMN preview_generation`,
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of UP) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  for (const statement of DOWN) await knex.raw(statement);
}
