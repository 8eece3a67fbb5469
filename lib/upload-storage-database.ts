// UPLOAD_STORAGE=database: files in app_upload_blobs (migrations/20261124000600), one
// bytea per stored name. Read in slices of CHUNK bytes with substring() (the column is
// stored uncompressed, so a slice reads only its pages): the first slice comes with the
// file's facts in one statement, and a file smaller than it costs that statement alone.
// Written in one INSERT (a file is at most 2 MB, already in memory when uploaded; a
// stream is gathered first): a half-written file is never visible.
import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { ByteRange, UploadObject, UploadStorage } from './upload-storage.js';

const CHUNK = 256 * 1024;

interface Head {
  content_type: string;
  size: number;
  created_at: Date;
  head: Buffer;
}

async function gather(content: Buffer | Readable): Promise<Buffer> {
  if (Buffer.isBuffer(content)) return content;
  const chunks: Buffer[] = [];
  for await (const chunk of content) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export class DatabaseUploadStorage implements UploadStorage {
  readonly kind = 'database' as const;

  constructor(private readonly db: Knex) {}

  async put(name: string, content: Buffer | Readable, contentType: string, db: Knex = this.db): Promise<void> {
    const bytes = await gather(content);
    await db('app_upload_blobs').insert({ name, content_type: contentType, size: bytes.length, bytes });
  }

  async open(name: string): Promise<UploadObject | undefined> {
    const { rows } = await this.db.raw<{ rows: Head[] }>(
      'SELECT content_type, size, created_at, substring(bytes from 1 for ?) AS head FROM app_upload_blobs WHERE name = ?',
      [CHUNK, name],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      size: row.size,
      contentType: row.content_type,
      modified: row.created_at,
      read: (range) => Readable.from(this.slices(name, row.head, range ?? { start: 0, end: row.size - 1 })),
    };
  }

  /** The bytes start..end (inclusive), from the first slice already read, then CHUNK at a time. */
  private async *slices(name: string, head: Buffer, range: ByteRange): AsyncGenerator<Buffer> {
    let position = range.start;
    while (position <= range.end) {
      const length = Math.min(CHUNK, range.end - position + 1);
      if (position + length <= head.length) {
        yield head.subarray(position, position + length);
      } else {
        const { rows } = await this.db.raw<{ rows: { chunk: Buffer }[] }>(
          'SELECT substring(bytes from ? for ?) AS chunk FROM app_upload_blobs WHERE name = ?',
          [position + 1, length, name],
        );
        const row = rows[0];
        // Removed while being read: the answer ends short rather than with other bytes.
        if (!row || row.chunk.length === 0) throw new Error(`upload ${name} was removed while being read`);
        yield row.chunk;
      }
      position += length;
    }
  }

  async exists(name: string): Promise<boolean> {
    return (await this.db('app_upload_blobs').where({ name }).first('name')) !== undefined;
  }

  async remove(name: string, db: Knex = this.db): Promise<void> {
    await db('app_upload_blobs').where({ name }).delete();
  }

  async *list(): AsyncIterable<string> {
    let after = '';
    for (;;) {
      const rows = await this.db('app_upload_blobs').where('name', '>', after).orderBy('name').limit(500).select('name');
      if (rows.length === 0) return;
      for (const row of rows) yield row.name;
      after = rows[rows.length - 1].name;
    }
  }
}
