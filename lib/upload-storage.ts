// Where uploaded files live: one interface, two implementations chosen by UPLOAD_STORAGE
// (lib/upload-storage-disk.ts, lib/upload-storage-database.ts). Every reader and writer
// of uploads goes through ctx.uploads (an UploadStore), never through the file system.
//
// Reads fall back: a name the configured storage does not have is looked up in the other
// one. So while `npm run uploads:migrate` moves files from one to the other, and after
// UPLOAD_STORAGE is switched before the last files have moved, every file stays served;
// the cost is one more lookup for a name neither has (a 404). Removal clears both.
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { Config, UploadStorageKind } from './config.js';
import { DatabaseUploadStorage } from './upload-storage-database.js';
import { DiskUploadStorage } from './upload-storage-disk.js';

/** Bytes start..end, both included (as in a Range header). */
export interface ByteRange {
  start: number;
  end: number;
}

/** A stored file, opened: its facts, and its bytes read on demand. */
export interface UploadObject {
  size: number;
  contentType: string;
  /** When it was stored (Last-Modified). */
  modified: Date;
  read(range?: ByteRange): Readable;
}

export interface UploadStorage {
  readonly kind: UploadStorageKind;
  /** Stores `content` under `name` (`db`: a transaction to join, database storage only). */
  put(name: string, content: Buffer | Readable, contentType: string, db?: Knex): Promise<void>;
  /** The file, or undefined when this storage does not have it. */
  open(name: string): Promise<UploadObject | undefined>;
  exists(name: string): Promise<boolean>;
  /** Removes the file; a missing one is no error (`db`: a transaction to join, database storage only). */
  remove(name: string, db?: Knex): Promise<void>;
  /** Every stored name, in order. */
  list(): AsyncIterable<string>;
}

export class UploadStore {
  readonly disk: DiskUploadStorage;
  readonly database: DatabaseUploadStorage;

  constructor(
    readonly kind: UploadStorageKind,
    uploadDir: string,
    db: Knex,
  ) {
    this.disk = new DiskUploadStorage(uploadDir);
    this.database = new DatabaseUploadStorage(db);
  }

  /** The storage new files go to (UPLOAD_STORAGE). */
  get configured(): UploadStorage {
    return this.storage(this.kind);
  }

  storage(kind: UploadStorageKind): UploadStorage {
    return kind === 'disk' ? this.disk : this.database;
  }

  /** The storage that is not the configured one. */
  get other(): UploadStorage {
    return this.storage(this.kind === 'disk' ? 'database' : 'disk');
  }

  put(name: string, content: Buffer | Readable, contentType: string, db?: Knex): Promise<void> {
    return this.configured.put(name, content, contentType, db);
  }

  /** The file from the configured storage, else from the other one (a move in progress). */
  async open(name: string): Promise<UploadObject | undefined> {
    return (await this.configured.open(name)) ?? (await this.other.open(name));
  }

  async exists(name: string): Promise<boolean> {
    return (await this.configured.exists(name)) || (await this.other.exists(name));
  }

  /** Removes the file from both storages (`db`: the transaction the database row goes with). */
  async remove(name: string, db?: Knex): Promise<void> {
    await this.database.remove(name, db);
    await this.disk.remove(name);
  }
}

export function createUploadStore(config: Pick<Config, 'uploadStorage' | 'uploadDir'>, db: Knex): UploadStore {
  return new UploadStore(config.uploadStorage, config.uploadDir, db);
}
