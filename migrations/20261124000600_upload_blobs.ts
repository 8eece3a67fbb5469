// Uploaded files kept in PostgreSQL (UPLOAD_STORAGE=database), frozen as of this version:
// one row per stored name (`avatars/<32 hex>.png`, `media/<32 hex>.jpg`), the bytes in a
// bytea column. STORAGE EXTERNAL keeps them uncompressed out of line (images are already
// compressed), so reading a slice with substring() fetches only that slice: files are
// streamed out in chunks, never loaded whole per request.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE app_upload_blobs (
      name varchar(200) PRIMARY KEY,
      content_type varchar(100) NOT NULL,
      size integer NOT NULL CHECK (size >= 0),
      bytes bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK (octet_length(bytes) = size)
    )`);
  await knex.raw(`ALTER TABLE app_upload_blobs ALTER COLUMN bytes SET STORAGE EXTERNAL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE IF EXISTS app_upload_blobs`);
}
