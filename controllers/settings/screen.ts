// The screen /admin/settings (settings.manage): one form for the scalar settings, with
// a home page picker that works without JavaScript (a GET search, `home_q`, brings the
// form back with the matching public pages as choices, as the page form's parent
// picker does), and one small form per image (upload, removal).
import Joi from 'joi';
import { text } from '../../lib/schema-primitives.js';
import { parentCandidates, placesOf, type PagePlace } from '../../models/pages/admin-tree.js';
import type { AnyCall, Call, FormLocals } from '../../routes/define.js';
import { changeSettings, currentSettings, removeImage, setImage } from '../../services/site-settings.js';
import { listThemes } from '../../services/themes.js';
import { redirectWithFlash, renderAdmin } from '../admin/shell.js';
import { imageOf } from './api.js';
import { settingsScreenMessages } from './messages.js';
import { patchOfForm, type SettingsForm } from './schemas.js';

const PICKER_SIZE = 20;

export const settingsScreenQuery = Joi.object<{ home_q?: string }>({ home_q: text().trim().max(200).allow('') });

interface HomeChoice {
  id: number;
  title: string;
  path: string;
  publicBranch: boolean;
}

/** The zones of the select, the default (APP_TIMEZONE) first; an alias chosen through the API (America/Montreal) is kept. */
function timeZoneOptions(defaultZone: string, chosen: unknown): Array<{ value: string; label: string }> {
  const zones = Intl.supportedValuesOf('timeZone');
  if (typeof chosen === 'string' && chosen && !zones.includes(chosen)) zones.push(chosen);
  return [{ value: '', label: `Par défaut (${defaultZone})` }, ...zones.sort().map((zone) => ({ value: zone, label: zone }))];
}

function homeSearchOf(call: AnyCall): string {
  const value: unknown = (call.query as { home_q?: unknown }).home_q;
  return typeof value === 'string' ? value.trim().slice(0, 200) : '';
}

// GET /admin/settings?home_q=
export async function showSettingsScreen(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  const { ctx } = call;
  const settings = await currentSettings(ctx);
  const q = homeSearchOf(call);
  const values: Record<string, unknown> = locals.values ?? {
    ...settings,
    accent_colour: settings.accent_colour ?? '',
    home_page_id: settings.home_page_id ?? '',
    // The title's default shows as itself; the zone's as «by default».
    time_zone: settings.time_zone === ctx.config.timeZone ? '' : settings.time_zone,
  };
  const chosenValue = values.home_page_id;
  const chosen =
    (typeof chosenValue === 'string' || typeof chosenValue === 'number') && /^[1-9][0-9]{0,9}$/.test(String(chosenValue)) ? Number(chosenValue) : null;
  const [known, found, themes] = await Promise.all([
    chosen === null ? Promise.resolve(new Map<number, PagePlace>()) : placesOf(ctx, [chosen]),
    q ? parentCandidates(ctx, q, null, PICKER_SIZE) : Promise.resolve({ items: [], more: false }),
    listThemes(ctx),
  ]);
  const current = chosen === null ? undefined : known.get(chosen);
  const choiceOf = (place: HomeChoice): HomeChoice => ({ id: place.id, title: place.title, path: place.path, publicBranch: place.publicBranch });
  const picker = {
    q,
    current: current && choiceOf(current),
    // Only what the site shows can be its home page.
    matches: found.items.filter((item) => item.publicBranch && item.id !== chosen).map(choiceOf),
    searched: Boolean(q),
    more: found.more,
  };
  await renderAdmin(
    call,
    'admin/settings/edit.njk',
    {
      pageTitle: settingsScreenMessages.pageTitle,
      settings,
      picker,
      themes,
      timeZones: timeZoneOptions(ctx.config.timeZone, values.time_zone),
      ...locals,
      values,
    },
    status,
  );
}

// POST /admin/settings
export async function saveSettingsForm(call: Call<Record<string, never>, Record<string, never>, SettingsForm>): Promise<void> {
  await changeSettings(call.ctx, call.origin, patchOfForm(call.body));
  redirectWithFlash(call.req, call.res, '/admin/settings', settingsScreenMessages.saved);
}

type ImageParams = { image: 'logo' | 'favicon' | 'social-image' };

// POST /admin/settings/{logo,favicon,social-image} (multipart: file)
export async function uploadSettingsImageForm(call: Call<ImageParams>): Promise<void> {
  await setImage(call.ctx, call.origin, imageOf(call.params.image), call.req.image!);
  redirectWithFlash(call.req, call.res, '/admin/settings', settingsScreenMessages.imageSaved);
}

// POST /admin/settings/{logo,favicon,social-image}/delete
export async function removeSettingsImageForm(call: Call<ImageParams>): Promise<void> {
  await removeImage(call.ctx, call.origin, imageOf(call.params.image));
  redirectWithFlash(call.req, call.res, '/admin/settings', settingsScreenMessages.imageRemoved);
}
