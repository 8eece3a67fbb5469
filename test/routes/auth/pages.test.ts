import { expect } from 'chai';
import request from 'supertest';
import { createFirstAdmin, createUserByAdmin } from '../../../models/auth/registration.js';
import { contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { FormClient, strongPassword, useFakeClock } from '../../support/form-client.js';

const TITLES: Array<[string, string]> = [
  ['/auth', 'Connexion'],
  ['/auth/login', 'Connexion'],
  ['/auth/anything-else', 'Connexion'],
  ['/auth/register', 'Créer un compte'],
  ['/auth/forgot', 'Mot de passe oublié'],
  ['/auth/reset', 'Nouveau mot de passe'],
  ['/auth/confirm', 'Vérification du courriel'],
  ['/auth/setup', 'Activer le compte'],
  ['/auth/logout', 'Déconnexion'],
];

function titleOf(html: string): string | undefined {
  return /<title>([^<]*)<\/title>/.exec(html)?.[1];
}

describe('/auth pages', () => {
  let app: App;
  const clock = useFakeClock();
  before(() => (app = createTestApp({ APP_NAME: 'Atelier' })));
  beforeEach(() => resetData(contextOf(app)));

  async function seedAdmin() {
    return createFirstAdmin(contextOf(app), { email: 'admin@example.com', password: strongPassword, name: 'Ada' });
  }

  describe('while no account exists', () => {
    it('renders the first-run form on every segment, titled «Première configuration»', async () => {
      for (const [path] of TITLES) {
        const page = await request(app).get(path);
        expect(page.status, path).to.equal(200);
        expect(titleOf(page.text), path).to.equal('Première configuration — Atelier');
        expect(page.text, path).to.include('Créer le compte administrateur');
        expect(page.text, path).to.include('name="name"');
      }
    });

    it('sends a visitor of /admin to the login URL, which shows the first-run form', async () => {
      const admin = await request(app).get('/admin/users');
      expect(admin.status).to.equal(303);
      expect(admin.headers.location).to.equal('/auth/login?next=%2Fadmin%2Fusers');
      const page = await request(app).get(admin.headers.location);
      expect(titleOf(page.text)).to.equal('Première configuration — Atelier');
    });
  });

  describe('once an account exists', () => {
    beforeEach(seedAdmin);

    it('titles each page as in SPEC A2: «<page> — <APP_NAME>»', async () => {
      for (const [path, title] of TITLES) {
        const page = await request(app).get(path);
        expect(page.status, path).to.equal(200);
        expect(titleOf(page.text), path).to.equal(`${title} — Atelier`);
        expect(page.text, path).to.include(`<h1 id="card-title">${title}</h1>`);
      }
    });

    it('answers every auth page with Cache-Control: no-store and a CSP without inline script', async () => {
      const page = await request(app).get('/auth/login');
      expect(page.headers['cache-control']).to.equal('no-store');
      const csp = page.headers['content-security-policy'];
      expect(csp).to.include("script-src 'self'");
      expect(csp).not.to.include('unsafe-inline');
      expect(csp).to.include("frame-ancestors 'none'");
      expect(csp).to.include("base-uri 'none'");
      expect(csp).to.include("object-src 'none'");
      expect(page.text).not.to.match(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(page.text).not.to.match(/\sstyle="/);
    });

    it('sends no Referer from pages whose URL carries a token', async () => {
      for (const path of ['/auth/reset', '/auth/confirm', '/auth/setup']) {
        const page = await request(app).get(`${path}?email=a%40example.com&token=abc`);
        expect(page.headers['referrer-policy'], path).to.equal('no-referrer');
      }
    });

    it('binds every label to its input, carries the anti-bot and CSRF fields, and has no asterisk', async () => {
      for (const path of ['/auth/login', '/auth/register', '/auth/forgot', '/auth/reset', '/auth/confirm', '/auth/setup']) {
        const { text } = await request(app).get(path);
        const labels = [...text.matchAll(/<label for="([^"]+)">/g)].map((match) => match[1]);
        expect(labels.length, path).to.be.greaterThan(0);
        for (const id of labels) expect(text, `${path} #${id}`).to.include(`id="${id}"`);
        expect(text, path).to.include('name="_csrf"');
        expect(text, path).to.include('name="_t"');
        expect(text, path).to.include('name="_hp"');
        expect(text, path).not.to.include('*');
        expect(text, path).not.to.match(/e-mail|avec succès/i);
      }
    });

    it('shows the password rules on creation forms, with the strength script, and no button revealing the password', async () => {
      const { text } = await request(app).get('/auth/register');
      expect(text).to.include('Au moins 8 caractères');
      expect(text).to.include('data-password-strength hidden');
      expect(text).to.include('<script src="/assets/js/password-strength.js" defer></script>');
      expect(text).not.to.match(/afficher|show password|type="text"[^>]*name="password"/i);
      const script = await request(app).get('/assets/js/password-strength.js');
      expect(script.status).to.equal(200);
    });

    it('links login and registration to each other while registration is open', async () => {
      const login = await request(app).get('/auth/login');
      expect(login.text).to.include('Pas encore de compte\u00a0? Créer un compte');
      expect(login.text).to.include('href="/auth/forgot"');
      const register = await request(app).get('/auth/register');
      expect(register.text).to.include('Déjà un compte\u00a0? Se connecter');
      const forgot = await request(app).get('/auth/forgot');
      expect(forgot.text).to.include('Retour à la connexion');
    });

    it('pre-fills the reset form from the link, and says at once when the link is dead', async () => {
      const page = await request(app).get('/auth/reset?email=admin%40example.com&token=not-a-real-token');
      expect(page.status).to.equal(200);
      expect(page.text).to.include('Ce lien est invalide ou a expiré. Une nouvelle demande est nécessaire.');
      expect(page.text).to.include('role="alert"');
      expect(page.text).to.include('href="/auth/forgot?email=admin%40example.com"');
    });

    it('shows the logout button to a logged-in user, and says when no session is open', async () => {
      const anonymous = await request(app).get('/auth/logout');
      expect(anonymous.text).to.include('Aucune session n’est ouverte sur cet appareil.');
      expect(anonymous.text).not.to.include('Se déconnecter');
      const client = new FormClient(app, clock);
      await client.submit('/auth/login', { email: 'admin@example.com', password: strongPassword });
      const page = await client.get('/auth/logout');
      expect(page.text).to.include('Se déconnecter');
      expect(page.text).to.include('action="/auth/logout"');
    });
  });

  describe('with registration closed (APP_AUTH_REGISTRATION=false)', () => {
    before(() => (app = createTestApp({ APP_NAME: 'Atelier', APP_AUTH_REGISTRATION: 'false' })));
    after(() => (app = createTestApp({ APP_NAME: 'Atelier' })));
    beforeEach(seedAdmin);

    it('shows the closing message instead of the form, and no registration link on login', async () => {
      const register = await request(app).get('/auth/register');
      expect(register.text).to.include('Les inscriptions sont actuellement fermées.');
      expect(register.text).not.to.include('name="password"');
      const login = await request(app).get('/auth/login');
      expect(login.text).not.to.include('Pas encore de compte\u00a0? Créer un compte');
    });

    it('refuses a registration POST anyway with 403 and the exact message, writing nothing', async () => {
      const client = new FormClient(app, clock);
      const html = await client.submit('/auth/register', { name: 'Bob', email: 'bob@example.com', password: strongPassword }, { from: '/auth/login' });
      expect(html.status).to.equal(403);
      expect(html.text).to.include('Les inscriptions sont actuellement fermées.');
      const json = await client.submit(
        '/auth/register',
        { name: 'Bob', email: 'bob@example.com', password: strongPassword },
        { from: '/auth/login', json: true },
      );
      expect(json.status).to.equal(403);
      expect(json.body).to.deep.include({ success: false, error: 'Les inscriptions sont actuellement fermées.' });
      expect(await contextOf(app).db('app_auth_users').where({ email: 'bob@example.com' }).first()).to.equal(undefined);
    });
  });

  describe('/admin guard', () => {
    beforeEach(seedAdmin);

    it('redirects a visitor without a session to the login page, for any /admin URL', async () => {
      for (const path of ['/admin', '/admin/', '/admin/unknown/deep']) {
        const response = await request(app).get(path);
        expect(response.status, path).to.equal(303);
        expect(response.headers.location, path).to.match(/^\/auth\/login\?next=/);
      }
    });

    it('answers 403 to a logged-in user without admin.access', async () => {
      await createUserByAdmin(contextOf(app), { email: 'user@example.com', name: 'User', password: strongPassword });
      const client = new FormClient(app, clock);
      const login = await client.submit('/auth/login', { email: 'user@example.com', password: strongPassword });
      expect(login.status).to.equal(303);
      expect(login.headers.location).to.equal('/account');
      const admin = await client.get('/admin');
      expect(admin.status).to.equal(403);
      expect(admin.text).to.include('Les droits nécessaires pour cette action manquent à ce compte.');
    });

    it('shows the landing page to an administrator, with a logout button carrying a CSRF token', async () => {
      const client = new FormClient(app, clock);
      const login = await client.submit('/auth/login', { email: 'admin@example.com', password: strongPassword });
      expect(login.headers.location).to.equal('/admin');
      const admin = await client.get('/admin');
      expect(admin.status).to.equal(200);
      expect(titleOf(admin.text)).to.equal('Administration — Atelier');
      expect(admin.text).to.include('action="/auth/logout"');
      expect(admin.text).to.match(/name="_csrf" value="[^"]+"/);
    });
  });
});
