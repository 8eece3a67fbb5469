// `npm run uploads:migrate -- --to database|disk` (scripts/uploads-migrate.ts): moves every
// stored file from the other storage to `to`, one at a time: copy, then remove the source.
// Resumable: a name the destination already has is skipped (a copy is written whole or
// not at all, so it is complete) and its source removed, which finishes a move cut short
// between the two steps. Servers keep serving meanwhile: a read falls back to the other
// storage (lib/upload-storage.ts), so a file is always found on one side or the other.
import type { UploadStorageKind } from './config.js';
import type { UploadStore } from './upload-storage.js';

export interface UploadMigrationReport {
  moved: number;
  skipped: number;
  failed: number;
  failures: { name: string; error: string }[];
}

export interface UploadMigrationOptions {
  /** Called after each file is handled (progress; a test stops a run here). */
  afterEach?: (name: string, outcome: 'moved' | 'skipped' | 'failed') => void | Promise<void>;
}

export async function migrateUploads(store: UploadStore, to: UploadStorageKind, options: UploadMigrationOptions = {}): Promise<UploadMigrationReport> {
  const destination = store.storage(to);
  const source = store.storage(to === 'disk' ? 'database' : 'disk');
  const report: UploadMigrationReport = { moved: 0, skipped: 0, failed: 0, failures: [] };
  for await (const name of source.list()) {
    let outcome: 'moved' | 'skipped' | 'failed';
    try {
      if (await destination.exists(name)) {
        outcome = 'skipped';
      } else {
        const file = await source.open(name);
        if (!file) continue; // removed meanwhile (a media deleted during the move)
        await destination.put(name, file.read(), file.contentType);
        outcome = 'moved';
      }
      await source.remove(name);
    } catch (error) {
      outcome = 'failed';
      report.failures.push({ name, error: error instanceof Error ? error.message : String(error) });
    }
    report[outcome]++;
    await options.afterEach?.(name, outcome);
  }
  return report;
}
