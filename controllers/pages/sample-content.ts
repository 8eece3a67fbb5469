// «Supprimer le contenu d'exemple»: the sample site of the first run removed in one action
// (services/pages-sample-site.ts), from the dashboard's button or the JSON API.
import Joi from 'joi';
import type { AnyCall, Call, FormLocals } from '../../routes/define.js';
import { redirectWithFlash, renderAdmin } from '../admin/shell.js';
import { removeSampleContent } from '../../services/pages-sample-site.js';
import { actorOf } from './admin-call.js';
import { pageScreenMessages } from './messages.js';

// DELETE /app/api/admin/sample-content → 204 (also when there is none left)
export async function deleteSampleContent(call: Call): Promise<void> {
  await removeSampleContent(call.ctx, actorOf(call));
  call.res.status(204).end();
}

/** The confirmation's field: the button sends it, so a stray POST removes nothing. */
export const sampleDeleteForm = Joi.object<{ confirm: 'yes' }>({ confirm: Joi.string().valid('yes').required().label('Confirmation') });

// GET /admin/sample-content/delete — what goes, and the button.
export async function confirmSampleContentRemoval(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  await renderAdmin(call, 'admin/pages/sample-delete.njk', { pageTitle: pageScreenMessages.sampleDeleteTitle, ...locals }, status);
}

// POST /admin/sample-content/delete {confirm: yes}
export async function removeSampleContentScreen(call: Call<Record<string, never>, Record<string, never>, { confirm: 'yes' }>): Promise<void> {
  await removeSampleContent(call.ctx, actorOf(call));
  redirectWithFlash(call.req, call.res, '/admin', pageScreenMessages.sampleRemoved);
}
