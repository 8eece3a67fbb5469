// The site's settings on /app/api/admin/settings (settings.manage), through the use
// cases of services/site-settings.ts, as the screen does.
import type { Call } from '../../routes/define.js';
import type { SettingsImage, SettingsPatch } from '../../models/settings/settings.js';
import { changeSettings, currentSettings, removeImage, setImage } from '../../services/site-settings.js';

type NoParams = Record<string, never>;
type ImageParams = { image: 'logo' | 'favicon' | 'social-image' };

/** `social-image` in the path is the column `social_image`. */
export function imageOf(image: ImageParams['image']): SettingsImage {
  return image === 'social-image' ? 'social_image' : image;
}

// GET /app/api/admin/settings
export async function showSettings(call: Call): Promise<void> {
  call.res.json(await currentSettings(call.ctx));
}

// PUT /app/api/admin/settings {title?, tagline?, accent_colour?, home_page_id?, footer?, time_zone?, noindex?, theme?}
export async function editSettings(call: Call<NoParams, NoParams, SettingsPatch>): Promise<void> {
  call.res.json(await changeSettings(call.ctx, call.origin, call.body));
}

// POST /app/api/admin/settings/{logo,favicon,social-image} (multipart: file)
export async function uploadSettingsImage(call: Call<ImageParams>): Promise<void> {
  call.res.status(201).json(await setImage(call.ctx, call.origin, imageOf(call.params.image), call.req.image!));
}

// DELETE /app/api/admin/settings/{logo,favicon,social-image}
export async function deleteSettingsImage(call: Call<ImageParams>): Promise<void> {
  await removeImage(call.ctx, call.origin, imageOf(call.params.image));
  call.res.status(204).end();
}
