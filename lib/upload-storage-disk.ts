// UPLOAD_STORAGE=disk: files under UPLOAD_DIR/<folder>/<name>. A file is written beside
// its final name and renamed, so a reader never sees half of it.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { contentTypeOf, storedName } from './upload-names.js';
import type { UploadObject, UploadStorage } from './upload-storage.js';

function missing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

export class DiskUploadStorage implements UploadStorage {
  readonly kind = 'disk' as const;

  constructor(private readonly directory: string) {}

  /** The absolute file of a stored name (callers check the name with storedName() first). */
  fileOf(name: string): string {
    return path.join(this.directory, name);
  }

  async put(name: string, content: Buffer | Readable): Promise<void> {
    const target = this.fileOf(name);
    await mkdir(path.dirname(target), { recursive: true });
    const temporary = `${target}.part`;
    try {
      await pipeline(Buffer.isBuffer(content) ? [content] : content, createWriteStream(temporary, { mode: 0o644 }));
      await rename(temporary, target);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }

  async open(name: string): Promise<UploadObject | undefined> {
    const file = this.fileOf(name);
    const stats = await stat(file).catch((error: unknown) => {
      if (missing(error)) return undefined;
      throw error;
    });
    if (!stats?.isFile()) return undefined;
    return {
      size: stats.size,
      contentType: contentTypeOf(name),
      modified: stats.mtime,
      read: (range) => createReadStream(file, range ? { start: range.start, end: range.end } : {}),
    };
  }

  async exists(name: string): Promise<boolean> {
    return (await this.open(name)) !== undefined;
  }

  async remove(name: string): Promise<void> {
    await unlink(this.fileOf(name)).catch((error: unknown) => {
      if (!missing(error)) throw error;
    });
  }

  async *list(): AsyncIterable<string> {
    const folders = await readdir(this.directory, { withFileTypes: true }).catch((error: unknown) => {
      if (missing(error)) return [];
      throw error;
    });
    for (const folder of folders.filter((entry) => entry.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
      const files = await readdir(path.join(this.directory, folder.name));
      for (const file of files.sort()) {
        const name = storedName(`${folder.name}/${file}`);
        if (name) yield name;
      }
    }
  }
}
