// Errors people can act on: one summary at the top of a refused form, focused, linking
// to each field in error, each message said once (beside its field); the tab title
// starts with «Erreur : »; the 403 and 404 pages say what happened and lead to the
// dashboard or the account page, with the request id in small print.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { completeErrorSummary, errorSummaryOf } from '../../routes/error-summary.js';
import { AdminClient, textOf } from '../support/admin-client.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { caller, makeUser } from '../support/fixtures.js';
import { FormClient, strongPassword, useFakeClock } from '../support/form-client.js';

const titleOf = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1];
const occurrences = (text: string, part: string) => text.split(part).length - 1;
const summariesOf = (html: string) => html.match(/<div class="error-summary"[^>]*>[\s\S]*?<\/div>/g) ?? [];

describe('errors people can act on', () => {
  let app: App;
  let ctx: AppContext;
  const clock = useFakeClock();
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));
  afterEach(() => ctx.background.settle());

  describe('a refused /auth form', () => {
    it('shows one focused summary linking to the field, the message once beside it, and «Erreur : » in the title', async () => {
      const response = await new FormClient(app, clock).submit('/auth', { name: 'Ada', email: 'ada@example.com', password: 'short' });
      expect(response.status).to.equal(400);
      expect(titleOf(response.text)).to.equal('Erreur\u00a0: Première configuration — Site de test');
      const summaries = summariesOf(response.text);
      expect(summaries).to.have.length(1);
      expect(summaries[0]).to.include('role="alert"').and.include('tabindex="-1"').and.include('autofocus');
      expect(summaries[0]).to.include('<h2>1 champ à corriger</h2>');
      expect(summaries[0]).to.include('<a href="#f-password">Mot de passe</a>');
      expect(response.text).to.include('id="f-password"');
      expect(occurrences(response.text, 'Le mot de passe doit contenir au moins 8 caractères.')).to.equal(1);
      expect(response.text).to.match(/<p class="field-error" id="f-password-error">Le mot de passe doit contenir au moins 8 caractères\.<\/p>/);
      // Only one element asks for the focus.
      expect(occurrences(response.text, 'autofocus')).to.equal(1);
    });

    it('lists every field joi refused, by its label', async () => {
      const response = await new FormClient(app, clock).submit('/auth', { name: '', email: 'not an address', password: strongPassword });
      expect(response.status).to.equal(400);
      const [summary] = summariesOf(response.text);
      expect(summary).to.include('<h2>Certaines valeurs envoyées ne sont pas valides.</h2>');
      expect(summary).to.include('<a href="#f-name">Nom</a>').and.include('<a href="#f-email">Courriel</a>');
      expect(occurrences(response.text, '«\u00a0Courriel\u00a0» doit être une adresse de courriel valide.')).to.equal(1);
    });

    it('shows a refusal that names no field in the summary alone', async () => {
      await makeUser(ctx, { email: 'ada@example.com', role: 'admin' });
      const response = await new FormClient(app, clock).submit('/auth/login', { email: 'ada@example.com', password: 'wrong password' });
      expect(response.status).to.equal(401);
      const summaries = summariesOf(response.text);
      expect(summaries).to.have.length(1);
      expect(summaries[0]).not.to.include('<a ');
      expect(titleOf(response.text)).to.match(/^Erreur\u00a0: /);
      const said = textOf(summaries[0] ?? '');
      expect(said).to.have.length.above(10);
      expect(occurrences(textOf(response.text), said)).to.equal(1);
    });

    it('keeps the plain title when nothing was refused', async () => {
      expect(titleOf((await request(app).get('/auth')).text)).to.equal('Première configuration — Site de test');
    });
  });

  describe('a refused /admin form', () => {
    it('links the summary to the wrapper of each field in error and says each message once', async () => {
      const client = await AdminClient.as(app, { role: 'admin' });
      const response = await client.post('/admin/users', { name: '', email: 'nope' }, '/admin/users/new');
      expect(response.status).to.equal(400);
      expect(titleOf(response.text)).to.match(/^Erreur\u00a0: /);
      const summaries = summariesOf(response.text);
      expect(summaries).to.have.length(1);
      expect(summaries[0]).to.include('autofocus').and.include('tabindex="-1"');
      expect(summaries[0]).to.include('<a href="#field-name">Nom</a>').and.include('<a href="#field-email">Courriel</a>');
      expect(response.text).to.include('id="field-name"').and.include('id="field-email"');
      expect(occurrences(response.text, '«\u00a0Courriel\u00a0» doit être une adresse de courriel valide.')).to.equal(1);
      expect(await ctx.db('app_auth_users').where({ email: 'nope' }).first()).to.equal(undefined);
    });

    it('writes in the summary the message of a field the page does not show', () => {
      const summary = errorSummaryOf('Ce rôle n’existe pas.', [{ field: 'role', message: 'Ce rôle n’existe pas.' }], ctx.site.fieldLabels);
      expect(summary).to.deep.equal({ title: '1 champ à corriger', fields: [{ name: 'role', label: 'Rôle', message: 'Ce rôle n’existe pas.' }] });
      const html = '<div class="error-summary"><h2>1 champ à corriger</h2><ul><li data-summary-field="role"><a href="#field-role">Rôle</a></li></ul></div>';
      expect(completeErrorSummary(html, summary)).to.include('<li>Rôle\u00a0: Ce rôle n’existe pas.</li>');
      expect(completeErrorSummary(`${html}<div class="field has-error" id="field-role">`, summary)).to.equal(
        `${html}<div class="field has-error" id="field-role">`,
      );
    });
  });

  describe('the 403 and 404 pages', () => {
    const smallPrint = (html: string) => /<p class="muted small">Référence pour le support\u00a0: <code>([^<]+)<\/code><\/p>/.exec(html)?.[1];

    it('tells a signed-in user without admin.access that access is refused, leads to the account page, with the request id in small print', async () => {
      const user = await caller(ctx);
      const response = await request(app).get('/admin/users').set('Cookie', user.cookie);
      expect(response.status).to.equal(403);
      expect(titleOf(response.text)).to.equal('Accès refusé — Site de test');
      expect(response.text).to.include('<h1 id="error-title">Accès refusé</h1>');
      expect(textOf(response.text)).to.include('Les droits nécessaires pour cette action manquent à ce compte.');
      expect(response.text).to.include('<a class="button button-primary" href="/account">Mon compte</a>');
      expect(response.text).not.to.include('href="/admin"');
      expect(smallPrint(response.text)).to.equal(response.headers['x-request-id']);
    });

    it('leads an administrator refused a screen back to the dashboard', async () => {
      const editor = await caller(ctx, { permissions: ['admin.access', 'pages.view'] });
      const response = await request(app).get('/admin/users').set('Cookie', editor.cookie);
      expect(response.status).to.equal(403);
      expect(response.text).to.include('<a class="button button-primary" href="/admin">Tableau de bord</a>');
    });

    it('says a page is not found, why it may be, and leads to the dashboard', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const response = await request(app).get('/admin/no-such-screen').set('Cookie', admin.cookie);
      expect(response.status).to.equal(404);
      expect(titleOf(response.text)).to.equal('Page introuvable — Site de test');
      expect(textOf(response.text)).to.include('Aucune page ne se trouve à cette adresse');
      expect(occurrences(textOf(response.text), 'Page introuvable')).to.equal(2);
      expect(response.text).to.include('href="/admin">Tableau de bord</a>');
      expect(smallPrint(response.text)).to.equal(response.headers['x-request-id']);
    });

    it('leads a signed-in user without admin.access from a missing account page to the account page', async () => {
      const user = await caller(ctx);
      const response = await request(app).get('/account/no-such-page').set('Cookie', user.cookie);
      expect(response.status).to.equal(404);
      expect(response.text).to.include('href="/account">Mon compte</a>');
    });
  });
});
