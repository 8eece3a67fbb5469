// The public cache's notifications name tags instead of ids (the cache knows nothing of
// pages: lib/public-cache.ts drops every answer carrying a tag a change names). Same
// triggers, same moments, same channel; only the payload changes, from
// `{t, c, p, m, r}` to `{tags}` (plus `all` and `lsn`, as before, from
// app_pages_public_notify_send, which still turns a payload over 7000 bytes into `all`):
//   a page inserted, deleted, or changed in place, address, visibility or title (t):
//     page:<id>, tree:<id>, list:<old and new parent>, pages, paths, and nav when a
//     parent is the root;
//   a page whose content only changed (c): page:<id>, list:<parent>, pages;
//   media rows: media:<id>;  redirect rows: redirects, paths.
// Frozen as of this version (nothing imported from the module; the tags are those of
// models/pages/cache-tags.ts at this date). `down` puts back the previous bodies.
import type { Knex } from 'knex';

const UP = [
  `CREATE FUNCTION app_pages_public_cache_tags(tree_ids jsonb, content_ids jsonb, parent_ids jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
   SELECT COALESCE(jsonb_agg(tag), '[]'::jsonb) FROM (
     SELECT 'page:' || e.id AS tag FROM jsonb_array_elements_text(COALESCE(tree_ids, '[]') || COALESCE(content_ids, '[]')) AS e(id)
     UNION SELECT 'tree:' || e.id FROM jsonb_array_elements_text(COALESCE(tree_ids, '[]')) AS e(id)
     UNION SELECT 'list:' || e.id FROM jsonb_array_elements_text(COALESCE(parent_ids, '[]')) AS e(id)
     UNION SELECT 'pages' WHERE COALESCE(jsonb_array_length(tree_ids), 0) + COALESCE(jsonb_array_length(content_ids), 0) > 0
     UNION SELECT 'paths' WHERE COALESCE(jsonb_array_length(tree_ids), 0) > 0
     UNION SELECT 'nav' WHERE COALESCE(jsonb_array_length(tree_ids), 0) > 0 AND COALESCE(parent_ids, '[]') @> '[0]'
   ) tags
   $$`,

  `CREATE OR REPLACE FUNCTION app_pages_public_notify_pages() RETURNS trigger LANGUAGE plpgsql AS $$
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
     PERFORM app_pages_public_notify_send(jsonb_build_object('tags', app_pages_public_cache_tags(tree_ids, content_ids, parent_ids)));
     RETURN NULL;
   END $$`,

  `CREATE OR REPLACE FUNCTION app_pages_public_notify_pages_v2() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     tree_ids jsonb;
     content_ids jsonb;
     parent_ids jsonb;
   BEGIN
     WITH changed AS (
       SELECT o.id,
              COALESCE(o.parent_id, 0) AS old_parent,
              COALESCE(n.parent_id, 0) AS new_parent,
              (o.parent_id IS DISTINCT FROM n.parent_id OR o.slug IS DISTINCT FROM n.slug
               OR o.visibility IS DISTINCT FROM n.visibility OR o.title IS DISTINCT FROM n.title) AS tree
       FROM old_rows o JOIN new_rows n ON n.id = o.id
       WHERE (to_jsonb(o) - ARRAY['revision', 'published_revision', 'draft_revision', 'scheduled_at', 'scheduled_by'])
             IS DISTINCT FROM (to_jsonb(n) - ARRAY['revision', 'published_revision', 'draft_revision', 'scheduled_at', 'scheduled_by'])
     )
     SELECT COALESCE(jsonb_agg(DISTINCT id) FILTER (WHERE tree), '[]'),
            COALESCE(jsonb_agg(DISTINCT id) FILTER (WHERE NOT tree), '[]'),
            (SELECT COALESCE(jsonb_agg(DISTINCT parent), '[]')
               FROM (SELECT old_parent AS parent FROM changed UNION SELECT new_parent FROM changed) parents)
     INTO tree_ids, content_ids, parent_ids
     FROM changed;
     IF COALESCE(jsonb_array_length(tree_ids), 0) + COALESCE(jsonb_array_length(content_ids), 0) = 0 THEN
       RETURN NULL;
     END IF;
     PERFORM app_pages_public_notify_send(jsonb_build_object('tags', app_pages_public_cache_tags(tree_ids, content_ids, parent_ids)));
     RETURN NULL;
   END $$`,

  `CREATE OR REPLACE FUNCTION app_pages_public_notify_media() RETURNS trigger LANGUAGE plpgsql AS $$
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
     PERFORM app_pages_public_notify_send(jsonb_build_object('tags', (SELECT jsonb_agg('media:' || e.id) FROM jsonb_array_elements_text(media_ids) AS e(id))));
     RETURN NULL;
   END $$`,

  `CREATE OR REPLACE FUNCTION app_page_redirects_notify() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'INSERT' THEN
       IF NOT EXISTS (SELECT 1 FROM new_rows) THEN RETURN NULL; END IF;
     ELSIF TG_OP IN ('UPDATE', 'DELETE') THEN
       IF NOT EXISTS (SELECT 1 FROM old_rows) THEN RETURN NULL; END IF;
     END IF;
     PERFORM app_pages_public_notify_send(jsonb_build_object('tags', jsonb_build_array('redirects', 'paths')));
     RETURN NULL;
   END $$`,
];

// The bodies as migrations pages/20261124000500, 20261125000100 and 20261125000200 left them.
const DOWN = [
  `CREATE OR REPLACE FUNCTION app_pages_public_notify_pages() RETURNS trigger LANGUAGE plpgsql AS $$
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

  `CREATE OR REPLACE FUNCTION app_pages_public_notify_pages_v2() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     tree_ids jsonb;
     content_ids jsonb;
     parent_ids jsonb;
   BEGIN
     WITH changed AS (
       SELECT o.id,
              COALESCE(o.parent_id, 0) AS old_parent,
              COALESCE(n.parent_id, 0) AS new_parent,
              (o.parent_id IS DISTINCT FROM n.parent_id OR o.slug IS DISTINCT FROM n.slug
               OR o.visibility IS DISTINCT FROM n.visibility OR o.title IS DISTINCT FROM n.title) AS tree
       FROM old_rows o JOIN new_rows n ON n.id = o.id
       WHERE (to_jsonb(o) - ARRAY['revision', 'published_revision', 'draft_revision', 'scheduled_at', 'scheduled_by'])
             IS DISTINCT FROM (to_jsonb(n) - ARRAY['revision', 'published_revision', 'draft_revision', 'scheduled_at', 'scheduled_by'])
     )
     SELECT COALESCE(jsonb_agg(DISTINCT id) FILTER (WHERE tree), '[]'),
            COALESCE(jsonb_agg(DISTINCT id) FILTER (WHERE NOT tree), '[]'),
            (SELECT COALESCE(jsonb_agg(DISTINCT parent), '[]')
               FROM (SELECT old_parent AS parent FROM changed UNION SELECT new_parent FROM changed) parents)
     INTO tree_ids, content_ids, parent_ids
     FROM changed;
     IF COALESCE(jsonb_array_length(tree_ids), 0) + COALESCE(jsonb_array_length(content_ids), 0) = 0 THEN
       RETURN NULL;
     END IF;
     PERFORM app_pages_public_notify_send(jsonb_build_object('t', tree_ids, 'c', content_ids, 'p', parent_ids));
     RETURN NULL;
   END $$`,

  `CREATE OR REPLACE FUNCTION app_pages_public_notify_media() RETURNS trigger LANGUAGE plpgsql AS $$
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

  `CREATE OR REPLACE FUNCTION app_page_redirects_notify() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'INSERT' THEN
       IF NOT EXISTS (SELECT 1 FROM new_rows) THEN RETURN NULL; END IF;
     ELSIF TG_OP IN ('UPDATE', 'DELETE') THEN
       IF NOT EXISTS (SELECT 1 FROM old_rows) THEN RETURN NULL; END IF;
     END IF;
     PERFORM app_pages_public_notify_send(jsonb_build_object('r', true));
     RETURN NULL;
   END $$`,
  `DROP FUNCTION IF EXISTS app_pages_public_cache_tags(jsonb, jsonb, jsonb)`,
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of UP) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  for (const statement of DOWN) await knex.raw(statement);
}
