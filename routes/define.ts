// One way to declare a route, for every area: a row states the method, the path, who
// may call it, the joi schemas of its params, query and body, and the handler; for an
// HTML form also the page that re-renders on a refusal. mountRoutes() derives the rest
// the same way everywhere: session lookup (unless the row is public), guard, the
// surface's own steps (CSRF, rate limit, body parsing), typed validation, the handler,
// and the form-failure handler.
import express, { type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../lib/context.js';
import type { RateLimitedOperation } from '../lib/config.js';
import type { FormImagesOptions } from '../lib/form-images.js';
import type { Origin } from '../lib/origin.js';
import type { UploadLimit } from '../lib/uploads.js';
import { prepareSchema, validatePrepared } from '../lib/validation.js';
import { ForbiddenError } from '../lib/errors.js';
import { requireAnyPermission, requirePermission, requireUser } from '../middleware/require-auth.js';
import { refuseUntilEnrolled } from '../middleware/two-factor-gate.js';

export type Access =
  /** No session lookup at all: public reads, the site, assets. */
  | 'public'
  /** The session is read when there is one; no guard (forms of /auth, links from emails). */
  | 'anyone'
  /** A logged-in user. */
  | 'user'
  /**
   * Auth level 'admin': admin.access AND this permission, or AND `own.permission` when
   * the row's subject (e.g. the page of `:id`) is the caller's own, as `own.owns` says
   * once the input is validated (a refusal is a 403 with `own.refusal`).
   */
  | { permission: string; own?: OwnAccess; section?: SectionAccess };

/** A permission that covers what the caller owns only (pages.manage_own beside pages.manage). */
interface OwnAccess {
  permission: string;
  owns(call: AnyCall): Promise<boolean>;
  refusal: string;
}

/**
 * The permission held on part of a module's objects only (the pages module's grants on
 * a section of the tree): a caller holding one of `permissions` scoped (the session
 * user's `scoped_permissions`) passes the guard, and `check` then decides on the row's
 * subject once the input is validated, for any caller without `permission` site-wide
 * (it also takes over `own.owns`, so one statement answers both). A refusal throws.
 */
interface SectionAccess {
  permissions: string[];
  check(call: AnyCall): Promise<void>;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** What a handler receives: validated (and converted) input, the request and the context. */
export interface Call<P = Record<string, never>, Q = Record<string, never>, B = Record<string, never>> {
  ctx: AppContext;
  req: Request;
  res: Response;
  /** Who asked and from where, for the services and the audit log (they never see `req`). */
  origin: Origin;
  params: P;
  query: Q;
  body: B;
}

export interface FormLocals {
  /** Which form of the page failed (several forms share a page). */
  form?: string;
  values?: Record<string, unknown>;
  error?: string;
  errorCode?: string;
  fieldErrors?: Record<string, string>;
  [key: string]: unknown;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCall = Call<any, any, any>;

export interface FormSpec {
  /** Which form of the page failed, or how to read it from the call (a block's index). */
  name?: string | ((call: AnyCall) => string);
  /** Shows the page again with the messages next to their fields and the input kept. */
  rerender(call: AnyCall, locals: FormLocals, status: number): Promise<void>;
  /**
   * Fields never kept for after a login when the session expired (routes/lost-session.ts),
   * besides those no form keeps (passwords, tokens, codes: routes/form-failure.ts keptValues).
   */
  secret?: string[];
}

export interface Route<P = Record<string, never>, Q = Record<string, never>, B = Record<string, never>> {
  method: Method;
  path: string | string[];
  access: Access;
  params?: Joi.ObjectSchema<P>;
  query?: Joi.ObjectSchema<Q>;
  body?: Joi.ObjectSchema<B>;
  /**
   * multipart/form-data with one image in this field (parsed before the body is
   * validated), under the limits `limit` names (lib/uploads.ts: a profile picture's by default).
   */
  upload?: { field: string; limit?: UploadLimit };
  /**
   * An HTML form that may come as multipart/form-data with images among its fields
   * (lib/form-images.ts): refused files are left for the handler, the rest is read.
   */
  formImages?: FormImagesOptions;
  /** The per-address budget this route spends (forms: every POST counts). */
  limit?: RateLimitedOperation;
  /** HTML forms: the page shown again when the rules refuse the submission. */
  form?: FormSpec;
  /**
   * Reachable by a user one of whose roles requires two-step verification before it is
   * set up (the enrolment and its page, the two-step status). Every other row with a
   * guard refuses that user (middleware/two-factor-gate.ts).
   */
  duringEnrolment?: boolean;
  /**
   * A form larger than its surface's (HTML forms: 100 kB, 500 fields): the size of its
   * urlencoded body (`'2mb'`) and, with `fieldLimit`, how many fields it may hold. A
   * refusal would lose the whole submission, so a row that posts a whole document
   * says how large one may be.
   */
  bodyLimit?: string;
  fieldLimit?: number;
  handler(call: Call<P, Q, B>): Promise<void> | void;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = Route<any, any, any>;

/** Declares a row with its types inferred from the schemas. */
export function route<P = Record<string, never>, Q = Record<string, never>, B = Record<string, never>>(row: Route<P, Q, B>): AnyRoute {
  return row as AnyRoute;
}

/** How one area (/app/api, /auth, /admin, /account, the site) treats its rows. */
export interface Surface {
  /** JSON surfaces refuse unknown query parameters and body fields; HTML forms ignore them. */
  strict: boolean;
  /** Reads the session (express-session and the user loader); skipped for public rows. */
  session: RequestHandler[];
  /** The area's steps between the guard and validation, for this row. */
  prepare(row: AnyRoute): RequestHandler[];
  /** The area's error handlers after the handler, for this row (form re-render). */
  failure(row: AnyRoute): ErrorRequestHandler[];
  /**
   * HTML forms: the urlencoded body's limits, parsed by each row before anything else
   * reads the request (a row's own bodyLimit/fieldLimit win). Without it the area parses
   * its bodies itself (JSON).
   */
  forms?: { limit: string; fields: number };
}

/** The row's urlencoded parser, by its own limits or its surface's. */
function formParserFor(surface: Surface, row: AnyRoute): RequestHandler[] {
  if (!surface.forms || row.method === 'get') return [];
  return [express.urlencoded({ extended: false, limit: row.bodyLimit ?? surface.forms.limit, parameterLimit: row.fieldLimit ?? surface.forms.fields })];
}

function guardFor(row: AnyRoute): RequestHandler[] {
  const { access } = row;
  if (access === 'public' || access === 'anyone') return [];
  const gate = row.duringEnrolment ? [] : [refuseUntilEnrolled];
  if (access === 'user') return [requireUser, ...gate];
  const guard =
    access.own || access.section
      ? requireAnyPermission([access.permission, ...(access.own ? [access.own.permission] : [])], access.section?.permissions)
      : requirePermission(access.permission);
  return [guard, ...gate];
}

/** A caller let through by an `own` or a section's permission only: the subject must be theirs, or in the section. */
async function checkOwnership(row: AnyRoute, call: AnyCall): Promise<void> {
  const { access } = row;
  if (typeof access !== 'object' || !(access.own || access.section)) return;
  if (call.req.user?.permissions.includes(access.permission)) return;
  if (access.section) return access.section.check(call);
  if (!(await access.own!.owns(call))) throw new ForbiddenError(access.own!.refusal, { code: 'not_owner' });
}

// A strict surface refuses any query parameter or body field a row does not declare.
const NOTHING = prepareSchema(Joi.object({}));

/**
 * Input a row declares no schema for: nothing reaches its handler. A strict surface
 * refuses it (400 naming the fields), an HTML surface ignores it; either way the
 * common case, no input at all, costs no validation.
 */
function undeclared(value: unknown, strict: boolean): Record<string, never> {
  if (strict && value && typeof value === 'object' && Object.keys(value).length > 0) validatePrepared(NOTHING, value);
  return {};
}

/** The request as the use cases see it: built once, after the session lookup and the guard. */
export function originOf(req: Request): Origin {
  const user = req.user;
  return { userId: user?.id ?? null, name: user?.name ?? null, ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null, requestId: req.id };
}

function runner(ctx: AppContext, row: AnyRoute, strict: boolean): RequestHandler {
  const lenient = { allowUnknown: !strict };
  // Prepared by the row's first request, not when the app is built: a start prepares
  // none of the few hundred schemas, and a process prepares those it is asked for.
  let prepared: { params?: Joi.Schema; query?: Joi.Schema; body?: Joi.Schema } | undefined;
  const prepare = () =>
    (prepared ??= {
      params: row.params && prepareSchema(row.params),
      query: row.query && prepareSchema(row.query, lenient),
      body: row.body && prepareSchema(row.body, lenient),
    });
  return async function runRoute(req: Request, res: Response): Promise<void> {
    const schemas = prepare();
    const params = schemas.params ? validatePrepared(schemas.params, req.params) : {};
    const query = schemas.query ? validatePrepared(schemas.query, req.query) : undeclared(req.query, strict);
    const body = schemas.body ? validatePrepared(schemas.body, req.body ?? {}) : undeclared(req.body, strict);
    const call = { ctx, req, res, origin: originOf(req), params, query, body };
    await checkOwnership(row, call);
    await row.handler(call);
  };
}

/**
 * Names the request after its row, for the metrics: the path as declared under the
 * router's mount path (`/app/api/users/:id`), never the raw path. For a row with several
 * paths, the one whose parameters were matched. Lower-cased mount path: routing ignores
 * case, and a label per spelling would let clients create series at will.
 */
function labelRoute(paths: string[]): RequestHandler {
  const parameters = paths.map((path) =>
    [...path.matchAll(/[:*](\w+)/g)]
      .map((match) => match[1])
      .sort()
      .join(','),
  );
  return function nameRequest(req: Request, res: Response, next: NextFunction): void {
    let path = paths[0];
    if (paths.length > 1) {
      const matched = Object.keys(req.params)
        .filter((key) => req.params[key] !== undefined)
        .sort()
        .join(',');
      const index = parameters.indexOf(matched);
      path = index >= 0 ? paths[index] : paths.join('|');
    }
    const prefix = req.baseUrl.toLowerCase();
    res.locals.routePattern = prefix && path === '/' ? prefix : prefix + path;
    next();
  };
}

/** A row declared wrong stops the start (or the router's build) with its method and paths. */
export function checkRows(surface: Surface, rows: AnyRoute[]): void {
  for (const row of rows) {
    const paths = Array.isArray(row.path) ? row.path : [row.path];
    if (paths.some((path) => path.includes(':')) && !row.params) {
      throw new Error(`route ${row.method.toUpperCase()} ${paths.join(', ')} has path parameters but no params schema`);
    }
    if ((row.bodyLimit || row.fieldLimit) && !surface.forms) {
      throw new Error(`route ${row.method.toUpperCase()} ${paths.join(', ')} declares a body limit on a surface that parses no forms`);
    }
  }
}

/**
 * An area's router built by the first request that reaches it, not at start: Express
 * compiles a path matcher for every step of every row (some ten per row), which for the
 * JSON API and /admin was a tenth of a start, paid before a public page could answer.
 * The rows themselves (the route table, the permissions) are all known at start, and
 * checkRows() has refused a row declared wrong by then.
 */
export function builtOnFirstRequest(build: () => RequestHandler): RequestHandler {
  let router: RequestHandler | undefined;
  return function areaRouter(req: Request, res: Response, next: NextFunction): void {
    router ??= build();
    router(req, res, next);
  };
}

/** Mounts every row on the router with the surface's steps around it. */
export function mountRoutes(router: Router, ctx: AppContext, surface: Surface, rows: AnyRoute[]): void {
  checkRows(surface, rows);
  for (const row of rows) {
    const paths = Array.isArray(row.path) ? row.path : [row.path];
    const session = row.access === 'public' ? [] : surface.session;
    const chain: Array<RequestHandler | ErrorRequestHandler> = [
      labelRoute(paths),
      ...formParserFor(surface, row),
      ...session,
      ...guardFor(row),
      ...surface.prepare(row),
      runner(ctx, row, surface.strict),
      ...surface.failure(row),
    ];
    router[row.method](paths, ...(chain as RequestHandler[]));
  }
}
