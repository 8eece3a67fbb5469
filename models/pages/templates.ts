// The page template registry (DESIGN §2, SPEC registerPageTemplate): a page's
// `template` names an entry, which names the Nunjucks view that renders it. `default`
// always exists. A registry is created by the module's register() (or by a model call
// that was given none), never filled at import time, so two apps never share one.
export interface PageTemplate {
  name: string;
  label: string;
  /** Nunjucks view, relative to views/. */
  view: string;
  /** Whether the public render also lists the page's public sub-pages. */
  listsChildren?: boolean;
}

const TEMPLATE_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const BUILT_IN_TEMPLATES: readonly PageTemplate[] = Object.freeze([
  { name: 'default', label: 'Page standard', view: 'site/templates/default.njk' },
  { name: 'section', label: 'Rubrique (liste des sous-pages)', view: 'site/templates/section.njk', listsChildren: true },
]);

export interface TemplateRegistry {
  register(template: PageTemplate): void;
  /** The template of that name, or `default` for an unknown stored name. */
  get(name: string): PageTemplate;
  has(name: string): boolean;
  /** For the admin screens and `GET /app/api/admin/pages/templates`: `default` first. */
  list(): Array<{ name: string; label: string }>;
}

/** A registry holding the built-in templates, ready for more. */
export function createTemplateRegistry(templates: readonly PageTemplate[] = BUILT_IN_TEMPLATES): TemplateRegistry {
  const entries = new Map<string, PageTemplate>();
  const registry: TemplateRegistry = {
    register(template) {
      if (!TEMPLATE_NAME_PATTERN.test(template.name)) throw new Error(`invalid template name: ${template.name}`);
      entries.set(template.name, { ...template });
    },
    get: (name) => entries.get(name) ?? entries.get('default')!,
    has: (name) => entries.has(name),
    list: () => [...entries.values()].map(({ name, label }) => ({ name, label })),
  };
  for (const template of templates) registry.register(template);
  if (!entries.has('default')) throw new Error('the template registry needs a `default` template');
  return registry;
}
