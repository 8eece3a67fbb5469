// The rows of every table the migrations create, as the pg driver returns them
// (timestamps as Date, json/jsonb parsed, integers as number), and the knex typing of
// `knex('<table>')` built from them. Types only: nothing here exists at run time.
//
// Keep in step with migrations/ (test/foundation/schema-snapshot.json lists the columns).
// A column with a default, a serial id or a nullable column may be left out of an insert;
// updates take any subset of the insert's columns. Timestamps may be given as Date or as
// an ISO string, and knex.fn.now()/knex.raw() are accepted anywhere by knex itself. A
// json/jsonb object may be given as an object (pg serialises it) or as JSON text; an array
// must be JSON text, since pg sends a JS array as a PostgreSQL array.
import type { Knex } from 'knex';

/** What a timestamptz column accepts on insert or update. */
export type TimestampInput = Date | string;

/** A JSON object stored in a json/jsonb column. */
export type JsonObject = Record<string, unknown>;

/** One element of app_pages.blocks: an object with a string `type` (models/pages/blocks.ts). */
export interface BlockRow {
  type: string;
  [key: string]: unknown;
}

// ---------------------------------------------------------------- auth (core)

export interface RoleRow {
  id: number;
  name: string;
  /** What the screens show (migration 20261125000300); `name` is the key the API grants by. */
  label: string;
  description: string;
  system: boolean;
  /** Holders must set up two-step verification before reaching anything else. */
  require_2fa: boolean;
  /** The ways its members may sign in (`password`, `passkey`, `sso:<id>`); null: every way (migration 20261128000300). */
  sign_in_methods: string[] | null;
  created_at: Date;
  updated_at: Date;
}
export interface RoleInsert {
  id?: number;
  name: string;
  /** NOT NULL since migration 20261125000300; optional here because the first migration inserts before the column exists. */
  label?: string;
  description?: string;
  system?: boolean;
  require_2fa?: boolean;
  created_at?: TimestampInput;
  updated_at?: TimestampInput;
  sign_in_methods?: string[] | null;
}

export interface PermissionSectionRow {
  key: string;
  label: string;
  position: number;
}

export interface PermissionRow {
  key: string;
  section: string;
  label: string;
  position: number;
}
export type PermissionInsert = Omit<PermissionRow, 'position'> & { position?: number };

export interface RolePermissionRow {
  role_id: number;
  permission_key: string;
}

export interface UserRow {
  id: number;
  /** Trimmed and lower-cased; unique. */
  email: string;
  name: string;
  /** The primary role; further roles are in app_auth_user_roles. */
  role_id: number;
  email_verified: boolean;
  image: string | null;
  created_at: Date;
  updated_at: Date;
  /** Set while the account is suspended: no session, no login. */
  suspended_at: Date | null;
  suspended_reason: string | null;
  /** Emails of the page review workflow (submissions to review, answers to one's own). */
  review_emails: boolean;
}
export interface UserInsert {
  id?: number;
  email: string;
  name: string;
  role_id: number;
  email_verified?: boolean;
  image?: string | null;
  created_at?: TimestampInput;
  updated_at?: TimestampInput;
  suspended_at?: TimestampInput | null;
  suspended_reason?: string | null;
  review_emails?: boolean;
}

export interface UserRoleRow {
  user_id: number;
  role_id: number;
}

export interface AccountRow {
  id: number;
  user_id: number;
  provider: string;
  account_id: string;
  /** bcrypt hash; only the 'credential' provider has one. */
  password_hash: string | null;
  created_at: Date;
  updated_at: Date;
}
export interface AccountInsert {
  id?: number;
  user_id: number;
  provider: string;
  account_id: string;
  password_hash?: string | null;
  created_at?: TimestampInput;
  updated_at?: TimestampInput;
}

export interface VerificationRow {
  id: number;
  /** A token kind of models/auth/verifications.ts. */
  kind: string;
  identifier: string;
  user_id: number;
  token_hash: string;
  payload: JsonObject;
  expires_at: Date;
  created_at: Date;
}
export interface VerificationInsert {
  id?: number;
  kind: string;
  identifier: string;
  user_id: number;
  token_hash: string;
  payload?: JsonObject | string;
  expires_at: TimestampInput;
  created_at?: TimestampInput;
}

/** The session table (sid, sess, expire) of our express-session store, plus the session list's columns. */
export interface SessionRow {
  sid: string;
  sess: JsonObject;
  expire: Date;
  user_id: number | null;
  public_id: string | null;
  ip: string | null;
  user_agent: string | null;
  created_at: Date;
  last_seen_at: Date;
  /** How it was opened: `password`, `passkey`, `sso:<id>` (migration 20261128000300). */
  sign_in_method: string | null;
  /** The second step that completed it: `totp`, `recovery`, `passkey`, `provider`. */
  second_factor: string | null;
}
export interface SessionInsert {
  sid: string;
  sess: JsonObject | string;
  expire: TimestampInput;
  user_id?: number | null;
  public_id?: string | null;
  ip?: string | null;
  user_agent?: string | null;
  created_at?: TimestampInput;
  last_seen_at?: TimestampInput;
  sign_in_method?: string | null;
  second_factor?: string | null;
}

export interface RateLimitRow {
  key: string;
  hits: number;
  reset_at: Date;
}
export interface RateLimitInsert {
  key: string;
  hits: number;
  reset_at: TimestampInput;
}

/** A form typed while the session expired (models/form-drafts.ts). */
export interface FormDraftRow {
  /** SHA-256 (hex) of the token in the browser's cookie. */
  token_hash: string;
  /** The account whose session expired: the only one the draft is given back to. */
  user_id: number;
  page: string;
  form: string | null;
  fields: Record<string, unknown>;
  expires_at: Date;
}
export interface FormDraftInsert {
  token_hash: string;
  user_id: number;
  page: string;
  form?: string | null;
  fields: string;
  expires_at: TimestampInput;
}

// ---------------------------------------------------------------- pages module

export type PageVisibility = 'public' | 'private';

export interface PageRow {
  id: number;
  parent_id: number | null;
  title: string;
  slug: string;
  template: string;
  blocks: BlockRow[];
  seo: JsonObject;
  visibility: PageVisibility;
  access: 'everyone' | 'members' | 'roles';
  access_roles: number[];
  /** The page or an ancestor asks more than `everyone` (kept by triggers). */
  restricted: boolean;
  author_id: number | null;
  updated_by: number | null;
  created_at: Date;
  updated_at: Date;
  /** The newest revision number, whatever its state (0: none recorded yet). */
  revision: number;
  /** The revision that is live. */
  published_revision: number | null;
  /** The pending draft: its content is that revision's row, never these columns. */
  draft_revision: number | null;
  /** When the draft goes live (only with a draft). */
  scheduled_at: Date | null;
  scheduled_by: number | null;
  /** Covered by every preview link's signature: moving it on voids the page's links. */
  preview_generation: number;
}
export interface PageInsert {
  id?: number;
  parent_id?: number | null;
  title: string;
  slug: string;
  template?: string;
  /** JSON text (JSON.stringify): pg would send a JS array as a PostgreSQL array, not as JSON. */
  blocks?: string;
  seo?: JsonObject | string;
  visibility?: PageVisibility;
  access?: 'everyone' | 'members' | 'roles';
  access_roles?: number[];
  author_id?: number | null;
  updated_by?: number | null;
  created_at?: TimestampInput;
  updated_at?: TimestampInput;
  revision?: number;
  published_revision?: number | null;
  draft_revision?: number | null;
  scheduled_at?: TimestampInput | null;
  scheduled_by?: number | null;
  preview_generation?: number;
}

/** An account with a page open in the editor: its continuous presence since, its last heartbeat. */
export interface PagePresenceRow {
  page_id: number;
  user_id: number;
  since: Date;
  seen_at: Date;
}

/** One recorded state of a page's content (drafts, publications, live writes, restores). */
export interface PageRevisionRow {
  id: number;
  page_id: number;
  /** 1, 2, 3… per page. */
  number: number;
  title: string;
  slug: string;
  /** No foreign key: history (the parent may be gone). */
  parent_id: number | null;
  template: string;
  blocks: BlockRow[];
  seo: JsonObject;
  visibility: PageVisibility;
  /** The page's own date field, as it was in this revision. */
  created_at: Date;
  author_id: number | null;
  recorded_at: Date;
  /** Whether the revision has ever been live (kept by triggers); published revisions are never pruned. */
  published: boolean;
  /** The latest expiry of a preview link naming this revision: kept until then. */
  preview_until: Date | null;
  /** Last continued by an autosave (the revision began at `recorded_at`); null for any other save. */
  autosaved_at: Date | null;
}
export interface PageRevisionInsert {
  id?: number;
  page_id: number;
  number: number;
  title: string;
  slug: string;
  parent_id?: number | null;
  template: string;
  /** JSON text, as PageInsert.blocks. */
  blocks?: string;
  seo?: JsonObject | string;
  visibility: PageVisibility;
  created_at: TimestampInput;
  author_id?: number | null;
  recorded_at: TimestampInput;
  published?: boolean;
  preview_until?: TimestampInput | null;
  autosaved_at?: TimestampInput | null;
}

export type PageReviewState = 'in_review' | 'rejected' | 'approved' | 'closed';

/** One round of review of a page's draft (models/pages/reviews.ts). */
export interface PageReviewRow {
  id: number;
  page_id: number;
  state: PageReviewState;
  /** The draft revision in review (kept on the draft by a trigger while in review). */
  revision: number;
  /** When the submitter asked it to go live (null: at approval). */
  publish_at: Date | null;
  submitted_by: number | null;
  submitted_at: Date;
  decided_by: number | null;
  decided_at: Date | null;
}

export type PageReviewInsert = Omit<PageReviewRow, 'id' | 'decided_by' | 'decided_at'> & { decided_by?: number | null; decided_at?: Date | null };

export type PageReviewEventKind = 'submitted' | 'resubmitted' | 'rejected' | 'approved';

/** A step of a review, with its comment. */
export interface PageReviewEventRow {
  id: number;
  review_id: number;
  page_id: number;
  kind: PageReviewEventKind;
  revision: number;
  comment: string | null;
  author_id: number | null;
  created_at: Date;
}

export type PageReviewEventInsert = Omit<PageReviewEventRow, 'id'>;

export interface PageRevisionPruneStateRow {
  id: number;
  last_run_at: Date;
}

export interface MediaRow {
  id: number;
  /** Generated name of the stored file under the upload directory; unique. */
  filename: string;
  original_name: string;
  mime_type: string;
  size: number;
  alt: string;
  caption: string;
  uploaded_by: number | null;
  created_at: Date;
  updated_at: Date;
  /** Pixels, upright (EXIF orientation applied); null until read (no sharp, or an unreadable file). */
  width: number | null;
  height: number | null;
  /** The focal point, in percent of the width and the height (50/50: the centre). */
  focal_x: number;
  focal_y: number;
  /** Made by services/pages-media-renditions.ts: stored names beside the original. */
  renditions: StoredRendition[];
  crops: StoredCrops;
}
/** A resized copy of a media, in one format. */
export interface StoredRendition {
  width: number;
  height: number;
  format: 'avif' | 'webp' | 'jpeg' | 'png';
  name: string;
}
/** A crop around the focal point it was made for. */
export interface StoredCrop {
  name: string;
  width: number;
  height: number;
  focal: [number, number];
}
/** Crops around the focal point: the shared link's card (1200 × 630) and the square thumbnail. */
export interface StoredCrops {
  social?: StoredCrop;
  square?: StoredCrop;
}
export interface MediaJobRow {
  media_id: number;
  generation: number;
  requested_at: Date;
  lease_token: string | null;
  leased_until: Date | null;
  attempts: number;
  last_error: string | null;
  done_at: Date | null;
}
export interface MediaInsert {
  id?: number;
  filename: string;
  original_name?: string;
  mime_type: string;
  size: number;
  alt?: string;
  caption?: string;
  uploaded_by?: number | null;
  created_at?: TimestampInput;
  updated_at?: TimestampInput;
  width?: number | null;
  height?: number | null;
  focal_x?: number;
  focal_y?: number;
  /** JSON text, as PageInsert.blocks. */
  renditions?: string;
  crops?: string;
}

/** One row (id 1): moved forward by every page write; the sitemap's ETag and Last-Modified. */
export interface PageTreeStateRow {
  id: number;
  /** bigint: pg returns it as a string. */
  version: string;
  changed_at: Date;
}
export interface PageTreeStateInsert {
  id?: number;
  version?: number | string;
  changed_at?: TimestampInput;
}

/** An old public path of a page (migration pages/20261125000200); page_id NULL: the page was deleted (410). */
export interface PageRedirectRow {
  id: number;
  path: string;
  page_id: number | null;
  kind: 'manual' | 'automatic';
  created_by: number | null;
  created_at: Date;
}
/** A menu edited at least once (migration pages/20261127000100); `items` as models/pages/menus.ts writes it. */
export interface PageMenuRow {
  name: string;
  items: unknown[];
  updated_by: number | null;
  updated_at: Date;
}
export interface PageMenuInsert {
  name: string;
  items: string;
  updated_by?: number | null;
  updated_at?: TimestampInput;
}
export interface PageRedirectInsert {
  id?: number;
  path: string;
  page_id?: number | null;
  kind: 'manual' | 'automatic';
  created_by?: number | null;
  created_at?: TimestampInput;
}

// ---------------------------------------------------------------- audit log (core)

/** Append-only: a trigger refuses UPDATE and DELETE except the retention prune. */
export interface AuditEventRow {
  /** bigserial: parsed as a number (lib/db.ts). */
  id: number;
  at: Date;
  /** No foreign key: the event outlives the account; actor_name is the snapshot. */
  actor_id: number | null;
  actor_name: string | null;
  ip: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  target_label: string | null;
  details: JsonObject;
}
export interface AuditEventInsert {
  id?: number;
  at?: TimestampInput;
  actor_id?: number | null;
  actor_name?: string | null;
  ip?: string | null;
  action: string;
  target_type?: string | null;
  target_id?: string | null;
  target_label?: string | null;
  details?: JsonObject | string;
}

/** One row (id 1): when the retention prune last ran. */
export interface AuditPruneStateRow {
  id: number;
  last_run_at: Date;
}

// ---------------------------------------------------------------- two-step verification (core)

/** Secrets are AES-256-GCM ciphertexts (models/auth/two-factor-crypto.ts), never the base32 text. */
export interface TwoFactorRow {
  user_id: number;
  pending_secret: string | null;
  pending_at: Date | null;
  secret: string | null;
  enabled_at: Date | null;
  /** Last accepted TOTP time step (Unix time / 30 s; fits an integer until the year 4000). */
  last_step: number | null;
  updated_at: Date;
}
export interface TwoFactorInsert {
  user_id: number;
  pending_secret?: string | null;
  pending_at?: TimestampInput | null;
  secret?: string | null;
  enabled_at?: TimestampInput | null;
  last_step?: number | null;
  updated_at?: TimestampInput;
}

/** A single sign-on provider (models/auth/sso-providers.ts); client_secret is encrypted (models/auth/two-factor-crypto.ts). */
export interface SsoProviderRow {
  id: number;
  label: string;
  issuer: string;
  client_id: string;
  client_secret: string | null;
  scopes: string;
  allow_signup: boolean;
  allowed_domains: string[];
  signup_role_id: number | null;
  enabled: boolean;
  /** The provider's assertion of several factors stands for the second step (migration 20261128000300). */
  trust_mfa: boolean;
  /** `acr` values that mean several factors, besides `amr` containing `mfa`. */
  mfa_acr_values: string[];
  created_at: Date;
  updated_at: Date;
}
export interface SsoProviderInsert {
  id?: number;
  label: string;
  issuer: string;
  client_id: string;
  client_secret?: string | null;
  scopes?: string;
  allow_signup?: boolean;
  allowed_domains?: string[];
  signup_role_id?: number | null;
  enabled?: boolean;
  created_at?: TimestampInput;
  updated_at?: TimestampInput;
  trust_mfa?: boolean;
  mfa_acr_values?: string[];
}

export interface RecoveryCodeRow {
  id: number;
  user_id: number;
  /** SHA-256 (hex) of the account id and the code. */
  code_hash: string;
  used_at: Date | null;
  created_at: Date;
}
export interface RecoveryCodeInsert {
  id?: number;
  user_id: number;
  code_hash: string;
  used_at?: TimestampInput | null;
  created_at?: TimestampInput;
}

export interface PendingLoginRow {
  /** SHA-256 (hex) of the token of the browser's cookie. */
  token_hash: string;
  user_id: number;
  expires_at: Date;
  attempts: number;
  next: string | null;
  /** The first step's method (`password`, `sso:<id>`; migration 20261128000300). */
  method: string | null;
  created_at: Date;
}
export interface PendingLoginInsert {
  token_hash: string;
  user_id: number;
  expires_at: TimestampInput;
  attempts?: number;
  next?: string | null;
  created_at?: TimestampInput;
  method?: string | null;
}

/** A passkey of an account (migration 20261126003000). */
export interface PasskeyRow {
  id: number;
  user_id: number;
  /** The authenticator's credential id, base64url. */
  credential_id: string;
  /** The COSE public key. */
  public_key: Buffer;
  counter: number;
  transports: string[];
  device_type: string;
  backed_up: boolean;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}
export interface PasskeyInsert {
  user_id: number;
  credential_id: string;
  public_key: Buffer;
  counter?: number | string;
  transports?: string[];
  device_type: string;
  backed_up?: boolean;
  name: string;
  created_at?: TimestampInput;
  last_used_at?: TimestampInput | null;
}

/** A WebAuthn challenge waiting for its answer, single use (migration 20261126003000). */
export interface PasskeyChallengeRow {
  /** SHA-256 (hex) of the cookie's token (sign-in) or of the session's id (addition). */
  token_hash: string;
  purpose: string;
  user_id: number | null;
  challenge: string;
  expires_at: Date;
}
export interface PasskeyChallengeInsert {
  token_hash: string;
  purpose: string;
  user_id?: number | null;
  challenge: string;
  expires_at: TimestampInput;
}

// ---------------------------------------------------------------- uploads (core)

/** A file stored in PostgreSQL (UPLOAD_STORAGE=database; lib/upload-storage-database.ts). */
export interface UploadBlobRow {
  /** The stored name, e.g. `media/<32 hex>.png` (the URL without /uploads/). */
  name: string;
  content_type: string;
  size: number;
  bytes: Buffer;
  created_at: Date;
}
export interface UploadBlobInsert {
  name: string;
  content_type: string;
  size: number;
  bytes: Buffer;
  created_at?: TimestampInput;
}

// ---------------------------------------------------------------- knex's own bookkeeping

export interface KnexMigrationRow {
  id: number;
  name: string;
  batch: number;
  migration_time: Date;
}
export type KnexMigrationInsert = Omit<KnexMigrationRow, 'id' | 'migration_time'> & { id?: number; migration_time?: TimestampInput };

export interface KnexMigrationLockRow {
  index: number;
  is_locked: number;
}

export interface SiteSettingsRow {
  id: boolean;
  title: string | null;
  tagline: string;
  accent_colour: string | null;
  home_page_id: number | null;
  footer: string;
  time_zone: string | null;
  noindex: boolean;
  theme: string;
  logo: string | null;
  /** The favicon's PNG sizes: `{"16": "/uploads/site/….png", …, "512": …}`. */
  favicon: Record<string, string> | null;
  social_image: string | null;
  updated_by: number | null;
  updated_at: Date;
}

// ---------------------------------------------------------------- knex('<table>') typing

/** Insert and update values may also be knex.raw()/knex.fn.now(), which CompositeTableType does not allow by itself. */
type Writable<T> = { [K in keyof T]: T[K] | Knex.Raw };
type Table<Row, Insert = Row> = Knex.CompositeTableType<Row, Writable<Insert>, Partial<Writable<Insert>>>;

export interface AppTables {
  app_auth_roles: Table<RoleRow, RoleInsert>;
  app_auth_permission_sections: Table<PermissionSectionRow>;
  app_auth_permissions: Table<PermissionRow, PermissionInsert>;
  app_auth_role_permissions: Table<RolePermissionRow>;
  app_auth_users: Table<UserRow, UserInsert>;
  app_auth_user_roles: Table<UserRoleRow>;
  app_auth_accounts: Table<AccountRow, AccountInsert>;
  app_auth_verifications: Table<VerificationRow, VerificationInsert>;
  app_auth_sessions: Table<SessionRow, SessionInsert>;
  app_auth_rate_limits: Table<RateLimitRow, RateLimitInsert>;
  app_auth_form_drafts: Table<FormDraftRow, FormDraftInsert>;
  app_pages: Table<PageRow, PageInsert>;
  app_pages_media: Table<MediaRow, MediaInsert>;
  app_pages_media_jobs: Table<MediaJobRow>;
  app_page_revisions: Table<PageRevisionRow, PageRevisionInsert>;
  app_page_presence: Table<PagePresenceRow>;
  app_pages_tree_state: Table<PageTreeStateRow, PageTreeStateInsert>;
  app_page_redirects: Table<PageRedirectRow, PageRedirectInsert>;
  app_page_menus: Table<PageMenuRow, PageMenuInsert>;
  app_page_reviews: Table<PageReviewRow, PageReviewInsert>;
  app_page_review_events: Table<PageReviewEventRow, PageReviewEventInsert>;
  app_audit_events: Table<AuditEventRow, AuditEventInsert>;
  app_audit_prune_state: Table<AuditPruneStateRow>;
  app_page_revision_prune_state: Table<PageRevisionPruneStateRow>;
  app_auth_two_factor: Table<TwoFactorRow, TwoFactorInsert>;
  app_auth_recovery_codes: Table<RecoveryCodeRow, RecoveryCodeInsert>;
  app_auth_sso_providers: Table<SsoProviderRow, SsoProviderInsert>;
  app_auth_pending_logins: Table<PendingLoginRow, PendingLoginInsert>;
  app_auth_passkeys: Table<PasskeyRow, PasskeyInsert>;
  app_auth_passkey_challenges: Table<PasskeyChallengeRow, PasskeyChallengeInsert>;
  app_upload_blobs: Table<UploadBlobRow, UploadBlobInsert>;
  app_site_settings: Table<SiteSettingsRow, Partial<SiteSettingsRow>>;
  knex_migrations: Table<KnexMigrationRow, KnexMigrationInsert>;
  knex_migrations_lock: Table<KnexMigrationLockRow>;
}

declare module 'knex/types/tables.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merges the table map into knex's
  interface Tables extends AppTables {}
}
