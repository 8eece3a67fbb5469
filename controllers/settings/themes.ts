// The themes: their list on /app/api/admin/themes (settings.manage), and their assets
// on the public site, /theme/<name>/<hashed name> (services/theme-assets.ts).
import path from 'node:path';
import Joi from 'joi';
import { NotFoundError } from '../../lib/errors.js';
import type { Call } from '../../routes/define.js';
import { listThemes, themeAsset } from '../../services/themes.js';
import { settingsScreenMessages } from './messages.js';

// GET /app/api/admin/themes
export async function showThemes(call: Call): Promise<void> {
  const items = await listThemes(call.ctx);
  call.res.json({ items: items.map(({ name, label, version, active, valid, error }) => ({ name, label, version, active, valid, error })) });
}

type AssetParams = { name: string; folder?: string; file: string };

const segment = Joi.string()
  .max(200)
  .pattern(/^[A-Za-z0-9_.-]+$/);
/** /theme/:name/:file and /theme/:name/:folder/:file: names only, never `..` (and the lookup is a map). */
export const themeAssetParams = Joi.object<AssetParams>({
  name: Joi.string()
    .pattern(/^[a-z0-9][a-z0-9_-]{0,63}$/)
    .required(),
  folder: segment.invalid('.', '..'),
  file: segment.invalid('.', '..').required(),
});

// GET /theme/<name>/<file> — immutable: its name is its content's hash.
export async function serveThemeAsset(call: Call<AssetParams>): Promise<void> {
  const { name, folder, file } = call.params;
  const asset = await themeAsset(call.ctx, name, folder ? `${folder}/${file}` : file);
  if (!asset) throw new NotFoundError(settingsScreenMessages.assetNotFound);
  call.res.set('Cache-Control', 'public, max-age=31536000, immutable');
  call.res.type(path.extname(file) || 'application/octet-stream');
  call.res.send(asset.bytes);
}
