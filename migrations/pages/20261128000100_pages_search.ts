// The public site search (issue 25): a text search configuration `app_fr_unaccent`
// (french with accents removed first, through the unaccent dictionary), one row per
// page in `app_page_search` (its weighted document: title A, headings and SEO title
// and description B, the text of its blocks C; and whether the page and every
// ancestor are public), and the words of the site in `app_page_search_words` for the
// trigram fallback that corrects a typo. Both are written by a row trigger on
// app_pages, in the writing transaction: every writer (the API, the editor, a
// publication, a schedule, a restore) is covered without remembering it. A change of
// visibility or parent recomputes `visible` down the page's subtree.
// unaccent and pg_trgm are trusted extensions (PostgreSQL 13+): the database's owner
// may create them. Frozen as of this version (nothing imported from the module).
import type { Knex } from 'knex';

// Each part of a page's text is cut at a bound: a tsvector is at most 1 MB.
const UP = [
  'CREATE EXTENSION IF NOT EXISTS unaccent',
  'CREATE EXTENSION IF NOT EXISTS pg_trgm',
  'CREATE TEXT SEARCH CONFIGURATION app_fr_unaccent (COPY = french)',
  'ALTER TEXT SEARCH CONFIGURATION app_fr_unaccent ALTER MAPPING FOR hword, hword_part, word, asciihword, asciiword, hword_asciipart WITH unaccent, french_stem',

  // The text of the blocks (weight C), Markdown links and emphasis marks removed.
  String.raw`CREATE FUNCTION app_page_search_text(blocks jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT left(COALESCE(string_agg(part, E'\n' ORDER BY n), ''), 100000)
    FROM (
      SELECT n, CASE b->>'type'
        WHEN 'paragraph' THEN regexp_replace(regexp_replace(b->>'text', '\[([^\]]*)\]\([^)]*\)', '\1', 'g'), '[*_]+', '', 'g')
        WHEN 'quote' THEN concat_ws(E'\n', b->>'text', b->>'cite')
        WHEN 'list' THEN CASE WHEN jsonb_typeof(b->'items') = 'array' THEN (SELECT string_agg(i, E'\n') FROM jsonb_array_elements_text(b->'items') AS i) END
        WHEN 'link' THEN b->>'label'
        WHEN 'heading' THEN NULL
        WHEN 'image' THEN NULL
        WHEN 'children' THEN NULL
        ELSE b->>'text'
      END AS part
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(blocks) = 'array' THEN blocks ELSE '[]'::jsonb END) WITH ORDINALITY AS e(b, n)
      WHERE jsonb_typeof(b) = 'object'
    ) parts
    WHERE part <> ''
  $$`,

  // Headings, SEO title and description (weight B).
  `CREATE FUNCTION app_page_search_headings(blocks jsonb, seo jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT left(concat_ws(E'\\n',
      (SELECT string_agg(b->>'text', E'\\n' ORDER BY n)
         FROM jsonb_array_elements(CASE WHEN jsonb_typeof(blocks) = 'array' THEN blocks ELSE '[]'::jsonb END) WITH ORDINALITY AS e(b, n)
        WHERE jsonb_typeof(b) = 'object' AND b->>'type' = 'heading'),
      CASE WHEN jsonb_typeof(seo) = 'object' THEN seo->>'title' END,
      CASE WHEN jsonb_typeof(seo) = 'object' THEN seo->>'description' END), 20000)
  $$`,

  `CREATE FUNCTION app_page_search_document(title text, blocks jsonb, seo jsonb) RETURNS tsvector LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT setweight(to_tsvector('app_fr_unaccent', COALESCE(title, '')), 'A')
        || setweight(to_tsvector('app_fr_unaccent', app_page_search_headings(blocks, seo)), 'B')
        || setweight(to_tsvector('app_fr_unaccent', app_page_search_text(blocks)), 'C')
  $$`,

  // The words a page adds to the site's vocabulary (lowercase, without accents).
  `CREATE FUNCTION app_page_search_words_of(title text, blocks jsonb, seo jsonb) RETURNS SETOF text LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT DISTINCT w FROM unnest(tsvector_to_array(to_tsvector('simple', unaccent(
      concat_ws(E'\\n', title, app_page_search_headings(blocks, seo), app_page_search_text(blocks)))))) AS w
    WHERE w ~ '^[[:alpha:]]{3,40}$'
  $$`,

  `CREATE TABLE app_page_search (
    page_id integer PRIMARY KEY REFERENCES app_pages(id) ON DELETE CASCADE,
    visible boolean NOT NULL,
    document tsvector NOT NULL
  )`,
  'CREATE INDEX app_page_search_document ON app_page_search USING gin (document) WHERE visible',
  // Never pruned: a word no page holds any more only offers a correction that finds nothing.
  'CREATE TABLE app_page_search_words (word text PRIMARY KEY)',
  'CREATE INDEX app_page_search_words_trigram ON app_page_search_words USING gist (word gist_trgm_ops)',

  `CREATE FUNCTION app_page_search_write() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      content_changed boolean := TG_OP = 'INSERT' OR NEW.title IS DISTINCT FROM OLD.title OR NEW.blocks IS DISTINCT FROM OLD.blocks OR NEW.seo IS DISTINCT FROM OLD.seo;
      place_changed boolean := TG_OP = 'INSERT' OR NEW.visibility IS DISTINCT FROM OLD.visibility OR NEW.parent_id IS DISTINCT FROM OLD.parent_id;
      parent_visible boolean;
    BEGIN
      IF content_changed THEN
        -- Only the words not known yet: ON CONFLICT alone cost ten times more (measured).
        INSERT INTO app_page_search_words (word)
        SELECT w FROM app_page_search_words_of(NEW.title, NEW.blocks, NEW.seo) AS w
        WHERE NOT EXISTS (SELECT 1 FROM app_page_search_words v WHERE v.word = w)
        ON CONFLICT DO NOTHING;
      END IF;
      IF NEW.parent_id IS NULL THEN
        parent_visible := true;
      ELSE
        SELECT s.visible INTO parent_visible FROM app_page_search s WHERE s.page_id = NEW.parent_id;
      END IF;
      IF TG_OP = 'INSERT' THEN
        INSERT INTO app_page_search (page_id, visible, document)
        VALUES (NEW.id, NEW.visibility = 'public' AND COALESCE(parent_visible, false), app_page_search_document(NEW.title, NEW.blocks, NEW.seo));
        RETURN NULL;
      END IF;
      IF content_changed THEN
        UPDATE app_page_search SET document = app_page_search_document(NEW.title, NEW.blocks, NEW.seo) WHERE page_id = NEW.id;
      END IF;
      IF place_changed THEN
        WITH RECURSIVE sub AS (
          SELECT NEW.id AS id, NEW.visibility = 'public' AND COALESCE(parent_visible, false) AS visible, 1 AS depth
          UNION ALL
          SELECT c.id, sub.visible AND c.visibility = 'public', sub.depth + 1
          FROM sub JOIN app_pages c ON c.parent_id = sub.id
          WHERE sub.depth < 256
        )
        UPDATE app_page_search s SET visible = sub.visible FROM sub WHERE s.page_id = sub.id AND s.visible IS DISTINCT FROM sub.visible;
      END IF;
      RETURN NULL;
    END $$`,
  'CREATE TRIGGER app_page_search_write AFTER INSERT OR UPDATE OF title, blocks, seo, visibility, parent_id ON app_pages FOR EACH ROW EXECUTE FUNCTION app_page_search_write()',

  // The pages already there, from the roots down.
  `INSERT INTO app_page_search (page_id, visible, document)
   WITH RECURSIVE tree AS (
     SELECT p.id, p.visibility = 'public' AS visible, 1 AS depth FROM app_pages p WHERE p.parent_id IS NULL
     UNION ALL
     SELECT c.id, tree.visible AND c.visibility = 'public', tree.depth + 1 FROM tree JOIN app_pages c ON c.parent_id = tree.id WHERE tree.depth < 256
   )
   SELECT p.id, tree.visible, app_page_search_document(p.title, p.blocks, p.seo) FROM tree JOIN app_pages p ON p.id = tree.id`,
  `INSERT INTO app_page_search_words (word)
   SELECT DISTINCT app_page_search_words_of(p.title, p.blocks, p.seo) FROM app_pages p ON CONFLICT DO NOTHING`,
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of UP) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS app_page_search_write ON app_pages');
  await knex.raw('DROP FUNCTION IF EXISTS app_page_search_write()');
  await knex.raw('DROP TABLE IF EXISTS app_page_search_words');
  await knex.raw('DROP TABLE IF EXISTS app_page_search');
  await knex.raw('DROP FUNCTION IF EXISTS app_page_search_words_of(text, jsonb, jsonb)');
  await knex.raw('DROP FUNCTION IF EXISTS app_page_search_document(text, jsonb, jsonb)');
  await knex.raw('DROP FUNCTION IF EXISTS app_page_search_headings(jsonb, jsonb)');
  await knex.raw('DROP FUNCTION IF EXISTS app_page_search_text(jsonb)');
  await knex.raw('DROP TEXT SEARCH CONFIGURATION IF EXISTS app_fr_unaccent');
  // The extensions stay: another part of the database may use them.
}
