// theme.json's rules (models/settings/theme-manifest.ts): what a valid declaration gives,
// and a message naming the place of each kind of problem.
import { expect } from 'chai';
import { parseManifest, type ThemeManifest } from '../../models/settings/theme-manifest.js';

const VALID = {
  name: 'docs',
  label: 'Documentation',
  version: '1.0.0',
  stylesheets: ['theme.css'],
  templates: { guide: { label: 'Guide', view: 'site/templates/guide.njk' } },
  blocks: {
    callout: {
      label: 'Encadré',
      view: 'site/blocks/callout.njk',
      fields: { tone: { type: 'select', label: 'Ton', required: true, options: [{ value: 'info', label: 'Information' }] } },
    },
  },
};

/** The problem of VALID with the value at `place` (dotted) replaced, or removed when undefined. */
function problemOf(place: string, value: unknown): string {
  const manifest = structuredClone(VALID) as Record<string, unknown>;
  const keys = place.split('.');
  const parent = keys.slice(0, -1).reduce((object, key) => object[key] as Record<string, unknown>, manifest);
  if (value === undefined) delete parent[keys[keys.length - 1]];
  else parent[keys[keys.length - 1]] = value;
  const parsed = parseManifest(JSON.stringify(manifest));
  if (!('error' in parsed)) throw new Error('expected a problem');
  return parsed.error;
}

describe('theme.json', () => {
  it('gives the declaration with its defaults', () => {
    const parsed = parseManifest(JSON.stringify(VALID));
    expect(parsed).to.have.property('manifest');
    const { manifest } = parsed as { manifest: ThemeManifest };
    expect(manifest.description).to.equal('');
    expect(manifest.settings).to.deep.equal({});
    expect(manifest.templates.guide).to.deep.equal({ label: 'Guide', view: 'site/templates/guide.njk', listsChildren: false });
    expect(manifest.blocks.callout.fields.tone.required).to.equal(true);
  });

  it('names the place of each problem', () => {
    expect(parseManifest('{ "name": '))
      .to.have.property('error')
      .that.match(/^theme\.json n’est pas du JSON valide/);
    expect(problemOf('version', undefined)).to.match(/^theme\.json, version : /);
    expect(problemOf('name', 'Docs Site')).to.match(/^theme\.json, name : /);
    expect(problemOf('blocks.callout.fields.tone.options', undefined)).to.match(/^theme\.json, blocks\.callout\.fields\.tone\.options : /);
    expect(problemOf('blocks.callout.fields.tone.type', 'colour')).to.match(/^theme\.json, blocks\.callout\.fields\.tone\.type : /);
    expect(problemOf('blocks.callout.fields.text', { type: 'text', label: 'Texte', options: [] })).to.match(
      /^theme\.json, blocks\.callout\.fields\.text\.options : /,
    );
    expect(problemOf('blocks.callout.fields.type', { type: 'text', label: 'Type' })).to.match(/^theme\.json, blocks\.callout\.fields\.type : /);
    expect(problemOf('templates.guide.view', '../../etc/passwd.njk')).to.match(/^theme\.json, templates\.guide\.view : /);
    expect(problemOf('stylesheets', ['/etc/theme.css'])).to.match(/^theme\.json, stylesheets\.0 : /);
    expect(problemOf('colours', {})).to.match(/^theme\.json, colours : /);
  });
});
