// Responsive images (issue 25, item 2): a media's size in pixels, its focal point (in
// percent of its width and height), the renditions made from it and its crops around
// the focal point; and the durable queue of the work that makes them
// (services/pages-media-renditions.ts), one row per media: claimed by one process at a
// time (FOR UPDATE SKIP LOCKED, then a lease it renews while it works), taken again by
// another when the lease runs out (a crash), marked done and kept (attempts tell how
// many claims it took). A new generation (the focal point moved) asks for the work
// again. Existing media get a row here, so their sizes and renditions are made by the
// first process that runs the work. Frozen as of this version.
import type { Knex } from 'knex';

const UP = [
  `ALTER TABLE app_pages_media
     ADD COLUMN width integer CONSTRAINT app_pages_media_width CHECK (width > 0),
     ADD COLUMN height integer CONSTRAINT app_pages_media_height CHECK (height > 0),
     ADD COLUMN focal_x smallint NOT NULL DEFAULT 50 CONSTRAINT app_pages_media_focal_x CHECK (focal_x BETWEEN 0 AND 100),
     ADD COLUMN focal_y smallint NOT NULL DEFAULT 50 CONSTRAINT app_pages_media_focal_y CHECK (focal_y BETWEEN 0 AND 100),
     ADD COLUMN renditions jsonb NOT NULL DEFAULT '[]'::jsonb,
     ADD COLUMN crops jsonb NOT NULL DEFAULT '{}'::jsonb`,
  `CREATE TABLE app_pages_media_jobs (
    media_id integer PRIMARY KEY CONSTRAINT app_pages_media_jobs_media_foreign REFERENCES app_pages_media (id) ON DELETE CASCADE,
    generation integer NOT NULL DEFAULT 1,
    requested_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
    lease_token varchar(32),
    leased_until timestamptz,
    attempts integer NOT NULL DEFAULT 0,
    last_error varchar(1000),
    done_at timestamptz
  )`,
  // The claim's scan: only work still to do.
  `CREATE INDEX app_pages_media_jobs_pending ON app_pages_media_jobs (requested_at, media_id) WHERE done_at IS NULL`,
  `INSERT INTO app_pages_media_jobs (media_id) SELECT id FROM app_pages_media`,
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of UP) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS app_pages_media_jobs');
  await knex.raw(
    'ALTER TABLE app_pages_media DROP COLUMN IF EXISTS width, DROP COLUMN IF EXISTS height, DROP COLUMN IF EXISTS focal_x, DROP COLUMN IF EXISTS focal_y, DROP COLUMN IF EXISTS renditions, DROP COLUMN IF EXISTS crops',
  );
}
