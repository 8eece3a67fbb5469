// The server-side template registry (DESIGN §2, SPEC registerPageTemplate): a page's
// `template` names an entry here, which names the Nunjucks view that renders it.
// `default` always exists.
export interface PageTemplate {
  name: string;
  label: string;
  /** Nunjucks view, relative to views/. */
  view: string;
  /** Whether the public render also lists the page's public sub-pages. */
  listsChildren?: boolean;
}

const registry = new Map<string, PageTemplate>();

export function registerPageTemplate(template: PageTemplate): void {
  if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(template.name)) throw new Error(`invalid template name: ${template.name}`);
  registry.set(template.name, { ...template });
}

export function getPageTemplate(name: string): PageTemplate {
  return registry.get(name) ?? registry.get('default')!;
}

export function hasPageTemplate(name: string): boolean {
  return registry.has(name);
}

export function listPageTemplates(): Array<{ name: string; label: string }> {
  return [...registry.values()].map(({ name, label }) => ({ name, label }));
}

export const BUILT_IN_TEMPLATES: PageTemplate[] = [
  { name: 'default', label: 'Page standard', view: 'site/templates/default.njk' },
  { name: 'section', label: 'Rubrique (liste des sous-pages)', view: 'site/templates/section.njk', listsChildren: true },
];

for (const template of BUILT_IN_TEMPLATES) registerPageTemplate(template);
