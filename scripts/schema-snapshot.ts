// `npm run schema:snapshot`: rewrites test/foundation/schema-snapshot.json from a fresh
// database migrated to the latest version. Run it when a new migration changes the
// schema on purpose, and commit the file with the migration. Uses the tests' database
// server (TEST_DATABASE_URL, or a throw-away embedded PostgreSQL).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../lib/paths.js';

// The test helpers are loaded at run time (this script runs under tsx): a static import
// would make the production build (tsc → dist/) compile the test folder too.
const load = (file: string): Promise<unknown> => import(pathToFileURL(path.join(projectRoot, 'test', 'support', file)).href);
interface TestDatabaseHelpers {
  prepareTestRun(): Promise<{ adminUrl: string }>;
  endTestRun(): Promise<void>;
}
interface SnapshotHelpers {
  SNAPSHOT_FILE: string;
  snapshotOfFreshDatabase(adminUrl: string, name: string): Promise<{ tables: object }>;
  formatSnapshot(snapshot: object): string;
}
const database = (await load('database.ts')) as TestDatabaseHelpers;
const snapshots = (await load('schema-snapshot.ts')) as SnapshotHelpers;

const { adminUrl } = await database.prepareTestRun();
try {
  const snapshot = await snapshots.snapshotOfFreshDatabase(adminUrl, `site_schema_snapshot_${process.pid}`);
  writeFileSync(snapshots.SNAPSHOT_FILE, snapshots.formatSnapshot(snapshot));
  console.log(`wrote ${path.relative(projectRoot, snapshots.SNAPSHOT_FILE)} (${Object.keys(snapshot.tables).length} tables)`);
} finally {
  await database.endTestRun();
}
