// Every SQL statement on app_site_settings. The table holds at most one row: none means
// every default. A NULL column means its default too (the title is APP_NAME, the time
// zone APP_TIMEZONE), so a change of APP_NAME still shows on a site that never chose.
import type { AppContext } from '../../lib/context.js';
import { ValidationError } from '../../lib/errors.js';
import type { SiteSettingsRow } from '../../lib/tables.js';
import { recordAudit } from '../audit.js';
import { publicPlaceOf } from '../pages/public.js';
import { settingsMessages } from './messages.js';
import { DEFAULT_THEME, SETTINGS_TABLE } from './schema.js';
import { themeRefusal } from './themes.js';

/** The sizes a favicon is stored in (px): 16/32/48 make /favicon.ico, 180 the Apple icon, 192/512 the manifest's. */
export const FAVICON_SIZES = [16, 32, 48, 180, 192, 512] as const;
export type FaviconSet = Record<string, string>;

/** The settings as the API shows them (GET/PUT /app/api/admin/settings). */
export interface SiteSettings {
  title: string;
  tagline: string;
  accent_colour: string | null;
  home_page_id: number | null;
  footer: string;
  time_zone: string;
  noindex: boolean;
  theme: string;
  logo_url: string | null;
  favicon_url: string | null;
  social_image_url: string | null;
}

/** What PUT may change (any of them). null puts the default back where there is one. */
export interface SettingsPatch {
  title?: string | null;
  tagline?: string;
  accent_colour?: string | null;
  home_page_id?: number | null;
  footer?: string;
  time_zone?: string | null;
  noindex?: boolean;
  theme?: string;
}

export type SettingsImage = 'logo' | 'favicon' | 'social_image';

export interface StoredSettings {
  settings: SiteSettings;
  /** The favicon's PNG sizes (URLs), when one was uploaded. */
  favicon: FaviconSet | null;
  /** The row's last change (null: no row, every default). */
  updatedAt: Date | null;
}

export function settingsOf(ctx: AppContext, row: SiteSettingsRow | undefined): StoredSettings {
  return {
    settings: {
      title: row?.title ?? ctx.config.appName,
      tagline: row?.tagline ?? '',
      accent_colour: row?.accent_colour ?? null,
      home_page_id: row?.home_page_id ?? null,
      footer: row?.footer ?? '',
      time_zone: row?.time_zone ?? ctx.config.timeZone,
      noindex: row?.noindex ?? false,
      theme: row?.theme ?? DEFAULT_THEME,
      logo_url: row?.logo ?? null,
      favicon_url: row?.favicon?.['512'] ?? null,
      social_image_url: row?.social_image ?? null,
    },
    favicon: row?.favicon ?? null,
    updatedAt: row?.updated_at ?? null,
  };
}

/** The stored settings: one statement. */
export async function readSettings(ctx: AppContext): Promise<StoredSettings> {
  return settingsOf(ctx, await ctx.db(SETTINGS_TABLE).first());
}

function fieldError(field: string, message: string): ValidationError {
  return new ValidationError(message, { details: [{ field, message }] });
}

function isTimeZone(zone: string): boolean {
  if (Intl.supportedValuesOf('timeZone').includes(zone)) return true;
  try {
    // Aliases (`UTC`, `Europe/Kiev`) are valid zones the list leaves out.
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The rules joi cannot check: a zone that exists, an installed theme, a public home page. */
async function checkPatch(ctx: AppContext, patch: SettingsPatch): Promise<void> {
  if (patch.time_zone && !isTimeZone(patch.time_zone)) throw fieldError('time_zone', settingsMessages.timeZoneInvalid);
  if (patch.theme !== undefined) {
    const refusal = await themeRefusal(ctx.config, patch.theme);
    if (refusal) throw fieldError('theme', refusal);
  }
  if (patch.home_page_id !== undefined && patch.home_page_id !== null && !(await publicPlaceOf(ctx, patch.home_page_id))) {
    throw fieldError('home_page_id', settingsMessages.homePageInvalid);
  }
}

export interface SettingsActor {
  id: number;
  name: string;
  ip: string | null;
}

/** Inserts or updates the one row with `columns`, and records who changed which fields. */
async function writeRow(ctx: AppContext, columns: Partial<SiteSettingsRow>, actor: SettingsActor | null, fields: string[]): Promise<void> {
  const values = { ...columns, updated_by: actor?.id ?? null, updated_at: ctx.clock.now() };
  await ctx
    .db(SETTINGS_TABLE)
    .insert({ id: true, ...values })
    .onConflict('id')
    .merge(Object.keys(values) as Array<keyof SiteSettingsRow>);
  await recordAudit(ctx, {
    actor: actor && { id: actor.id, name: actor.name },
    ip: actor?.ip ?? null,
    action: 'settings.updated',
    target: { type: 'settings', id: null, label: 'Réglages du site' },
    details: { fields },
  });
}

/** Applies a checked patch (call it in a transaction); nothing to change writes nothing. */
export async function updateSettings(ctx: AppContext, patch: SettingsPatch, actor: SettingsActor | null): Promise<void> {
  await checkPatch(ctx, patch);
  const fields = Object.keys(patch).filter((key) => patch[key as keyof SettingsPatch] !== undefined);
  if (!fields.length) return;
  const columns: Partial<SiteSettingsRow> = {};
  for (const field of fields) Object.assign(columns, { [field]: patch[field as keyof SettingsPatch] });
  if (columns.title === '') columns.title = null;
  await writeRow(ctx, columns, actor, fields);
}

/** Sets (or clears, with null) an image; returns what it replaces, so the caller removes the old files. */
export async function setSettingsImage(
  ctx: AppContext,
  image: SettingsImage,
  value: string | FaviconSet | null,
  actor: SettingsActor | null,
): Promise<string[]> {
  const row = await ctx.db(SETTINGS_TABLE).forUpdate().first();
  const previous = row?.[image] ?? null;
  const column = image === 'favicon' && value !== null ? JSON.stringify(value) : value;
  await writeRow(ctx, { [image]: column }, actor, [image]);
  if (previous === null) return [];
  return typeof previous === 'string' ? [previous] : Object.values(previous);
}
