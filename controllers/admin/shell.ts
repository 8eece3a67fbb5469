// Shared by every screen of /admin and /account: the navigation built from the screens
// the modules declared (ctx.site.adminScreens, in permission-catalogue order), flash
// messages, and rendering inside the admin layout. A refused form is re-rendered by
// the one form-failure handler (routes/form-failure.ts) through its row's `rerender`.
import type { Request, Response } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../lib/context.js';
import { idParam } from '../../lib/schema-primitives.js';
import { validateValue } from '../../lib/validation.js';
import { adminTitles } from './messages.js';

/** What a screen needs to render: a route's call, or any object holding the three. */
export interface ScreenCall {
  ctx: AppContext;
  req: Request;
  res: Response;
}

/**
 * A numeric id of the path, for a page shown both by its row (params already
 * converted) and by the form-failure handler (which passes the raw req.params).
 */
export function pathId(call: { params: Record<string, unknown> }, name = 'id'): number {
  const value = call.params[name];
  if (typeof value === 'number') return value;
  return validateValue<Record<string, number>>(Joi.object({ [name]: idParam.required() }), { [name]: value })[name];
}

interface NavEntry {
  href: string;
  label: string;
  current: boolean;
}

function isCurrent(href: string, path: string): boolean {
  return href === '/admin' ? path === '/admin' || path === '/admin/' : path === href || path.startsWith(href + '/');
}

/**
 * Sections in catalogue order: the declared permission sections by position (core
 * sections come first), then any section a module gave screens without declaring it.
 */
function sectionOrder(ctx: AppContext): string[] {
  const declared = [...ctx.site.permissionSections]
    .sort((a, b) => a.position - b.position || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((section) => section.key);
  const rest = [...ctx.site.adminScreens.keys()].filter((key) => !declared.includes(key));
  return [...declared, ...rest];
}

/**
 * The entries the user may open: admin.access and the screen's permission. Built from
 * what the modules registered, so it costs no query.
 */
function navigationFor(ctx: AppContext, req: Request): NavEntry[] {
  const held = new Set(req.user?.permissions ?? []);
  const scoped = new Set(req.user?.scoped_permissions ?? []);
  const path = req.originalUrl.split('?')[0];
  const entries: NavEntry[] = [];
  if (held.has('admin.access')) {
    for (const section of sectionOrder(ctx)) {
      for (const screen of ctx.site.adminScreens.get(section) ?? []) {
        if (held.has(screen.permission) || (screen.scoped && scoped.has(screen.permission)))
          entries.push({ href: screen.href, label: screen.label, current: isCurrent(screen.href, path) });
      }
    }
  }
  const profile = held.has('admin.access') ? '/admin/profile' : '/account';
  entries.push({ href: profile, label: adminTitles.profile, current: isCurrent(profile, path) });
  return entries;
}

export type FlashType = 'success' | 'error';

export function flash(req: Request, message: string, type: FlashType = 'success'): void {
  if (!req.session) return;
  req.session.flash = [...(req.session.flash ?? []), { type, message }];
}

function takeFlash(req: Request): Array<{ type: FlashType; message: string }> {
  const messages = req.session?.flash ?? [];
  if (req.session && messages.length) delete req.session.flash;
  return messages;
}

/** A form kept while the session expired comes back filled, over the page's defaults (routes/lost-session.ts). */
function restoredLocals(res: Response, locals: Record<string, unknown>): Record<string, unknown> {
  const restored = res.locals.restoredForm;
  if (!restored) return {};
  const defaults = locals.values && typeof locals.values === 'object' ? locals.values : {};
  return { form: restored.form, values: { ...defaults, ...restored.values } };
}

/**
 * Renders a screen in the admin layout with navigation, user and pending flash
 * messages; a template error rejects, so it reaches the caller's error handling.
 */
export function renderAdmin(call: ScreenCall, view: string, locals: Record<string, unknown>, status = 200): Promise<void> {
  const { ctx, req, res } = call;
  res.set('Cache-Control', 'no-store');
  const context = {
    user: req.user,
    nav: navigationFor(ctx, req),
    flash: takeFlash(req),
    values: {},
    fieldErrors: {},
    ...locals,
    ...restoredLocals(res, locals),
  };
  return new Promise((resolve, reject) => {
    res.status(status).render(view, context, (error: Error | null, html?: string) => {
      if (error) return reject(error);
      res.send(html);
      resolve();
    });
  });
}

/**
 * A form success: a flash message, then 303 to the page that shows it. The session is
 * stored before the redirect is sent: express-session would otherwise send the headers
 * while still writing it, and a browser that follows the Location at once could read
 * the session without its message.
 */
export function redirectWithFlash(req: Request, res: Response, location: string, message: string, type: FlashType = 'success'): void {
  flash(req, message, type);
  if (!req.session) return res.redirect(303, location);
  req.session.save((error?: unknown) => (error ? req.next?.(error) : res.redirect(303, location)));
}
