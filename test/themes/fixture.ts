// A site theme written into a temporary THEMES_DIR, as a developer would make one
// (docs/themes.md): its own layout, a `guide` template, a `callout` block type with a
// required select and a required Markdown text, a stylesheet and a thumbnail.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const TEST_THEME = 'essai';
export const THEME_CSS = '.callout { border: 2px solid teal; }\n';

const TEST_MANIFEST = {
  name: TEST_THEME,
  label: 'Thème d’essai',
  version: '2.1.0',
  description: 'Un thème écrit par le test.',
  stylesheets: ['theme.css'],
  templates: { guide: { label: 'Guide', view: 'site/templates/guide.njk', listsChildren: false } },
  blocks: {
    callout: {
      label: 'Encadré',
      view: 'site/blocks/callout.njk',
      fields: {
        tone: {
          type: 'select',
          label: 'Ton',
          required: true,
          options: [
            { value: 'info', label: 'Information' },
            { value: 'warning', label: 'Attention' },
          ],
        },
        text: { type: 'markdown', label: 'Texte', required: true, max: 5000 },
        wide: { type: 'boolean', label: 'Pleine largeur', required: false },
        picture: { type: 'image', label: 'Illustration', required: false },
      },
    },
  },
  settings: { colours: { accent: '#1a5fb4' } },
};

const LAYOUT = `<!doctype html>
<html lang="fr"><head><meta charset="utf-8"><title>{{ meta.title }}</title>
<link rel="stylesheet" href="{{ themeAsset('theme.css') }}"></head>
<body data-theme="{{ themeName }}" class="layout-essai">
<header>{{ site.title }}</header>
<main id="main">{% block content %}{% endblock %}</main>
</body></html>
`;

const GUIDE = `{% extends "site/layout.njk" %}
{% block content %}<article class="guide"><h1>Guide : {{ page.title }}</h1>
{% set children = page.id | listPublicChildPages %}
<ul class="guide-children">{% for child in children %}<li><a href="{{ child.url }}">{{ child.title }}</a></li>{% endfor %}</ul>
{% include "site/page-body.njk" %}</article>{% endblock %}
`;

const CALLOUT = `{% set picture = block.picture | media %}<aside class="callout callout-{{ block.tone }}{% if block.wide %} wide{% endif %}">{{ block.text | markdown }}</aside>{% if picture %}<img class="callout-picture" src="{{ picture.url }}" alt="{{ picture.alt }}">{% endif %}
`;

const THUMBNAIL = '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="100"><rect width="160" height="100" fill="teal"/></svg>\n';

/** Writes `files` (path → content) under `root/name`. */
function writeTheme(root: string, name: string, files: Record<string, string>): string {
  const folder = path.join(root, name);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
    writeFileSync(path.join(folder, file), content);
  }
  return folder;
}

/** A fresh THEMES_DIR holding the test theme and a theme whose theme.json is invalid. */
export function makeThemesDir(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'site-themes-'));
  writeTheme(root, TEST_THEME, {
    'theme.json': JSON.stringify(TEST_MANIFEST, null, 2),
    'views/site/layout.njk': LAYOUT,
    'views/site/templates/guide.njk': GUIDE,
    'views/site/blocks/callout.njk': CALLOUT,
    'assets/theme.css': THEME_CSS,
    'thumbnail.svg': THUMBNAIL,
  });
  // A select without its options: invalid, it cannot be activated.
  const broken = structuredClone(TEST_MANIFEST) as Record<string, unknown> & { name: string; blocks: { callout: { fields: { tone: { options?: unknown } } } } };
  broken.name = 'casse';
  delete broken.blocks.callout.fields.tone.options;
  writeTheme(root, 'casse', { 'theme.json': JSON.stringify(broken) });
  return root;
}
