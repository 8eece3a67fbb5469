// Every committed change that can alter public output sends one NOTIFY on the channel
// `site_public_changes`, from triggers, in the writing transaction (so it is delivered
// at commit, and never for a rollback). No model has to remember it. Frozen as of this
// version (nothing imported from the module).
//
// Payload (JSON, one per statement and table):
//   t: pages whose place, address or visibility changed (created, moved, renamed,
//      retitled, made private or public, deleted): the page and its subtree are dropped,
//      and every cached "unknown path";
//   c: pages whose content only changed (blocks, SEO, template, authors, dates);
//   p: the parents (old and new; 0 for the root) whose child lists are shaped by them;
//   m: media rows inserted, changed or deleted (pages showing them are dropped);
//   all: true when everything must go (TRUNCATE, or more ids than a payload holds);
//   lsn: pg_current_wal_lsn() when the statement ran, a lower bound of the commit's
//        position in the WAL (a replica that has replayed past it may still lack the
//        commit: a reader waits for the primary's position read after the notification).
// A payload is at most 8000 bytes: past 7000 the ids are replaced by `all`.
import type { Knex } from 'knex';

const UP = [
  `CREATE FUNCTION app_pages_public_notify_send(payload jsonb) RETURNS void LANGUAGE plpgsql AS $$
   DECLARE
     text_payload text := (payload || jsonb_build_object('lsn', pg_current_wal_lsn()::text))::text;
   BEGIN
     IF length(text_payload) > 7000 THEN
       text_payload := jsonb_build_object('all', true, 'lsn', pg_current_wal_lsn()::text)::text;
     END IF;
     PERFORM pg_notify('site_public_changes', text_payload);
   END $$`,

  `CREATE FUNCTION app_pages_public_notify_pages() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     tree_ids jsonb;
     content_ids jsonb;
     parent_ids jsonb;
   BEGIN
     IF TG_OP = 'INSERT' THEN
       SELECT jsonb_agg(DISTINCT n.id), jsonb_agg(DISTINCT COALESCE(n.parent_id, 0)) INTO tree_ids, parent_ids FROM new_rows n;
       content_ids := '[]';
     ELSIF TG_OP = 'DELETE' THEN
       SELECT jsonb_agg(DISTINCT o.id), jsonb_agg(DISTINCT COALESCE(o.parent_id, 0)) INTO tree_ids, parent_ids FROM old_rows o;
       content_ids := '[]';
     ELSE
       WITH changed AS (
         SELECT o.id,
                COALESCE(o.parent_id, 0) AS old_parent,
                COALESCE(n.parent_id, 0) AS new_parent,
                (o.parent_id IS DISTINCT FROM n.parent_id OR o.slug IS DISTINCT FROM n.slug
                 OR o.visibility IS DISTINCT FROM n.visibility OR o.title IS DISTINCT FROM n.title) AS tree
         FROM old_rows o JOIN new_rows n ON n.id = o.id
         WHERE o IS DISTINCT FROM n
       )
       SELECT COALESCE(jsonb_agg(DISTINCT id) FILTER (WHERE tree), '[]'),
              COALESCE(jsonb_agg(DISTINCT id) FILTER (WHERE NOT tree), '[]'),
              (SELECT COALESCE(jsonb_agg(DISTINCT parent), '[]')
                 FROM (SELECT old_parent AS parent FROM changed UNION SELECT new_parent FROM changed) parents)
       INTO tree_ids, content_ids, parent_ids
       FROM changed;
     END IF;
     IF COALESCE(jsonb_array_length(tree_ids), 0) + COALESCE(jsonb_array_length(content_ids), 0) = 0 THEN
       RETURN NULL;
     END IF;
     PERFORM app_pages_public_notify_send(jsonb_build_object('t', COALESCE(tree_ids, '[]'), 'c', COALESCE(content_ids, '[]'), 'p', COALESCE(parent_ids, '[]')));
     RETURN NULL;
   END $$`,

  `CREATE FUNCTION app_pages_public_notify_media() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     media_ids jsonb;
   BEGIN
     IF TG_OP = 'INSERT' THEN
       SELECT jsonb_agg(DISTINCT n.id) INTO media_ids FROM new_rows n;
     ELSIF TG_OP = 'DELETE' THEN
       SELECT jsonb_agg(DISTINCT o.id) INTO media_ids FROM old_rows o;
     ELSE
       SELECT jsonb_agg(DISTINCT o.id) INTO media_ids FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE o IS DISTINCT FROM n;
     END IF;
     IF media_ids IS NULL THEN
       RETURN NULL;
     END IF;
     PERFORM app_pages_public_notify_send(jsonb_build_object('m', media_ids));
     RETURN NULL;
   END $$`,

  `CREATE FUNCTION app_pages_public_notify_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM app_pages_public_notify_send(jsonb_build_object('all', true));
     RETURN NULL;
   END $$`,

  `CREATE TRIGGER app_pages_public_notify_insert AFTER INSERT ON app_pages
   REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_pages_public_notify_pages()`,
  `CREATE TRIGGER app_pages_public_notify_update AFTER UPDATE ON app_pages
   REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_pages_public_notify_pages()`,
  `CREATE TRIGGER app_pages_public_notify_delete AFTER DELETE ON app_pages
   REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_pages_public_notify_pages()`,
  `CREATE TRIGGER app_pages_public_notify_truncate AFTER TRUNCATE ON app_pages
   FOR EACH STATEMENT EXECUTE FUNCTION app_pages_public_notify_truncate()`,

  `CREATE TRIGGER app_pages_media_public_notify_insert AFTER INSERT ON app_pages_media
   REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_pages_public_notify_media()`,
  `CREATE TRIGGER app_pages_media_public_notify_update AFTER UPDATE ON app_pages_media
   REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_pages_public_notify_media()`,
  `CREATE TRIGGER app_pages_media_public_notify_delete AFTER DELETE ON app_pages_media
   REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_pages_public_notify_media()`,
  `CREATE TRIGGER app_pages_media_public_notify_truncate AFTER TRUNCATE ON app_pages_media
   FOR EACH STATEMENT EXECUTE FUNCTION app_pages_public_notify_truncate()`,
];

const TRIGGERS: Array<[string, string]> = [
  ['app_pages_public_notify_insert', 'app_pages'],
  ['app_pages_public_notify_update', 'app_pages'],
  ['app_pages_public_notify_delete', 'app_pages'],
  ['app_pages_public_notify_truncate', 'app_pages'],
  ['app_pages_media_public_notify_insert', 'app_pages_media'],
  ['app_pages_media_public_notify_update', 'app_pages_media'],
  ['app_pages_media_public_notify_delete', 'app_pages_media'],
  ['app_pages_media_public_notify_truncate', 'app_pages_media'],
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of UP) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  for (const [trigger, table] of TRIGGERS) await knex.raw(`DROP TRIGGER IF EXISTS ${trigger} ON ${table}`);
  for (const fn of ['app_pages_public_notify_truncate', 'app_pages_public_notify_media', 'app_pages_public_notify_pages']) {
    await knex.raw(`DROP FUNCTION IF EXISTS ${fn}()`);
  }
  await knex.raw('DROP FUNCTION IF EXISTS app_pages_public_notify_send(jsonb)');
}
