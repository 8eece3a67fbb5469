// Shared by every screen of /admin and /account: the navigation built from the
// permission catalogue, flash messages, rendering inside the admin layout, and the
// error handler that turns a refused form into the same form with its messages.
import type { NextFunction, Request, Response } from 'express';
import { logger } from '../../lib/logger.js';
import { refuseCrossSite } from '../../middleware/cross-site.js';
import { csrfProtection, verifyCsrfToken } from '../../middleware/csrf.js';
import { toAppError } from '../../middleware/error-handler.js';
import { permissionCatalogue } from '../../models/auth/roles.js';

export interface AdminScreen {
  href: string;
  label: string;
  /** Permission needed to see the entry (besides admin.access). */
  permission: string;
}

// Screens per catalogue section. A module registers its own (pages does), so a
// section appears in the navigation once its permissions are seeded and a screen exists.
const screensBySection = new Map<string, AdminScreen[]>([
  ['administration', [{ href: '/admin', label: 'Tableau de bord', permission: 'admin.access' }]],
  ['users', [{ href: '/admin/users', label: 'Utilisateurs', permission: 'users.view' }]],
  ['roles', [{ href: '/admin/roles', label: 'Rôles', permission: 'roles.view' }]],
]);

export function registerAdminScreen(section: string, screen: AdminScreen): void {
  const screens = screensBySection.get(section) ?? [];
  if (!screens.some((existing) => existing.href === screen.href)) screens.push(screen);
  screensBySection.set(section, screens);
}

export interface NavEntry {
  href: string;
  label: string;
  current: boolean;
}

function isCurrent(href: string, path: string): boolean {
  return href === '/admin' ? path === '/admin' || path === '/admin/' : path === href || path.startsWith(href + '/');
}

/** Catalogue order (core sections first); an entry shows only with its view permission. */
export async function navigationFor(req: Request): Promise<NavEntry[]> {
  const held = new Set(req.user?.permissions ?? []);
  const path = req.originalUrl.split('?')[0];
  const entries: NavEntry[] = [];
  if (held.has('admin.access')) {
    for (const section of await permissionCatalogue()) {
      for (const screen of screensBySection.get(section.section) ?? []) {
        if (held.has(screen.permission)) entries.push({ href: screen.href, label: screen.label, current: isCurrent(screen.href, path) });
      }
    }
  }
  const profile = held.has('admin.access') ? '/admin/profile' : '/account';
  entries.push({ href: profile, label: 'Mon profil', current: isCurrent(profile, path) });
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

export interface FormLocals {
  /** Which form of the page failed (several forms share a page). */
  form?: string;
  values?: Record<string, unknown>;
  error?: string;
  fieldErrors?: Record<string, string>;
  [key: string]: unknown;
}

/** Renders a screen in the admin layout with navigation, user and pending flash messages. */
export async function renderAdmin(req: Request, res: Response, view: string, locals: Record<string, unknown>, status = 200): Promise<void> {
  res.set('Cache-Control', 'no-store');
  res.status(status).render(view, {
    user: req.user,
    nav: await navigationFor(req),
    flash: takeFlash(req),
    values: {},
    fieldErrors: {},
    ...locals,
  });
}

/** A form success: a flash message, then 303 to the page that shows it. */
export function redirectWithFlash(req: Request, res: Response, location: string, message: string, type: FlashType = 'success'): void {
  flash(req, message, type);
  res.redirect(303, location);
}

/** The submitted values to show again: strings only, never a password or a token. */
export function echoedValues(body: unknown): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  if (!body || typeof body !== 'object') return values;
  for (const [key, value] of Object.entries(body)) {
    if (/password|^_/.test(key)) continue;
    if (typeof value === 'string') values[key] = value.slice(0, 5000);
    else if (Array.isArray(value)) values[key] = value.filter((item) => typeof item === 'string').slice(0, 500);
  }
  return values;
}

/** Marks that the guards passed: errors after this point belong to the form. */
export function formReached(_req: Request, res: Response, next: NextFunction): void {
  res.locals.formReached = true;
  next();
}

/** The failed form's name, or how to read it from the request (e.g. a block's index). */
export type FormName = string | ((req: Request) => string);

export type Rerender = (req: Request, res: Response, locals: FormLocals, status: number) => Promise<void>;

/**
 * Error handler of a form route: a refusal by the rules (validation, conflict, an
 * escalation refused by a model) re-renders the form with the messages next to their
 * fields and the input kept. Guards (401, 403 of the permission check, CSRF) and
 * internal errors go on to the site's error handler.
 */
export function formFailure(form: FormName, rerender: Rerender) {
  return async function adminFormFailure(error: unknown, req: Request, res: Response, next: NextFunction): Promise<void> {
    if (res.headersSent || !res.locals.formReached) return next(error);
    const appError = toAppError(error);
    if (appError.status >= 500 || appError.status === 401 || appError.code === 'csrf') return next(error);
    const fieldErrors: Record<string, string> = {};
    for (const detail of appError.details ?? []) fieldErrors[detail.field] ??= detail.message;
    logger.debug({ requestId: req.id, code: appError.code, form }, 'admin form refused');
    await rerender(req, res, { form: typeof form === 'function' ? form(req) : form, values: echoedValues(req.body), error: appError.message, fieldErrors }, appError.status);
  };
}

type Handler = (req: Request, res: Response, next: NextFunction) => unknown;

/**
 * The handler chain of a form POST: guards, both CSRF defences, the form's handler,
 * and its failure handler re-rendering the page (see formFailure).
 */
export function formChain(form: FormName, guards: Handler[], handler: Handler, rerender: Rerender): Array<Handler | ReturnType<typeof formFailure>> {
  return [...guards, ...csrfProtection, formReached, handler, formFailure(form, rerender)];
}

/**
 * The same for a multipart form: the body (hence the token) exists only once the
 * upload is parsed, so the cross-site refusal runs first, the token check after
 * parsing. An upload refused for its size or type re-renders the form.
 */
export function uploadFormChain(form: FormName, guards: Handler[], parse: Handler, handler: Handler, rerender: Rerender): Array<Handler | ReturnType<typeof formFailure>> {
  return [...guards, refuseCrossSite, formReached, parse, verifyCsrfToken, handler, formFailure(form, rerender)];
}
