// What the users, roles, profile and media screens show: one-word account states, last
// sign-in, counts written out, sizes in French, the pages using an image, the picture
// in the header, the password rules beside a new password.
import { expect } from 'chai';
import type { AppContext } from '../../../lib/context.js';
import { recordAudit } from '../../../models/audit.js';
import { insertMedia } from '../../../models/pages/media.js';
import { createPage } from '../../../models/pages/pages.js';
import { contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { makeUser } from '../../support/fixtures.js';
import { AdminClient, textOf } from '../../support/admin-client.js';

describe('users, roles, profile and media screens', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  const admin = () => AdminClient.as(app, { role: 'admin', name: 'Ada Admin' });

  describe('/admin/users', () => {
    it('shows each account’s last sign-in from the log: relative in the list, dated on the detail page, «Jamais» for an invitation', async () => {
      const client = await admin();
      const seen = await makeUser(ctx, { name: 'Vera Vue' });
      const invited = await makeUser(ctx, { name: 'Ivo Invité', password: null, verified: false });
      const at = new Date(ctx.clock.now().getTime() - 3 * 3600_000);
      await recordAudit({ ...ctx, clock: { now: () => at } } as AppContext, {
        actor: { id: seen.id, name: seen.name },
        ip: '127.0.0.1',
        action: 'auth.login',
        target: { type: 'user', id: seen.id, label: seen.name },
      });
      const list = await client.get('/admin/users');
      const text = textOf(list.text);
      expect(text).to.match(/Vera Vue \S+ Utilisateur Actif il y a 3 heures/);
      expect(text).to.match(/Ivo Invité \S+ Utilisateur Invitation en attente .* Jamais/);
      expect(list.text).to.include(`<time datetime="${at.toISOString()}"`);
      const detail = textOf((await client.get(`/admin/users/${seen.id}`)).text);
      expect(detail).to.match(/Dernière connexion \d{1,2} \S+ \d{4} à \d{1,2} h \d{2}/);
      expect(textOf((await client.get(`/admin/users/${invited.id}`)).text)).to.include('Dernière connexion Jamais');
    });

    it('puts the search button beside its field, says «Aucun compte» with a way back when nothing matches', async () => {
      const client = await admin();
      const page = await client.get('/admin/users?search=personne');
      expect(page.text).to.match(
        /<div class="field-row">\s*<input id="users-search"[^>]*>\s*<button type="submit" class="button button-secondary">Rechercher<\/button>/,
      );
      const text = textOf(page.text);
      expect(text).to.include('Aucun compte pour « personne »').and.include('Aucun compte ne correspond à « personne ».');
      expect(page.text).to.include('<a class="button button-secondary" href="/admin/users">Afficher tous les comptes</a>');
      expect(page.text).to.include('«\u00a0personne\u00a0»');
    });

    it('gives every cell of the list its column name, so rows read as cards on a narrow screen', async () => {
      const client = await admin();
      const page = await client.get('/admin/users');
      const cells = [...page.text.matchAll(/<td( data-label="([^"]+)")?/g)].map((match) => match[2]);
      expect(cells).to.deep.equal(['Nom', 'Rôles', 'État', 'Dernière connexion']);
    });

    it('has one primary button on a user’s detail page, and one control for roles (no «Rôle principal»)', async () => {
      const client = await admin();
      const target = await makeUser(ctx, { name: 'Bob', verified: false });
      const page = await client.get(`/admin/users/${target.id}`);
      expect(page.text.match(/button-primary/g)).to.have.length(1);
      expect(page.text).not.to.include('name="role"').and.not.to.include('Rôle principal');
      expect(page.text.match(/name="role_id"/g)).to.have.length(1);
      // The choices are labels; their values stay ids.
      expect(page.text).to.match(/<option value="\d+">Administrateur<\/option>/);
    });
  });

  describe('/admin/profile and /account', () => {
    it('shows the rules of a new password with the strength meter and its script', async () => {
      const client = await admin();
      const page = await client.get('/admin/profile');
      expect(page.text).to.include('<script src="/assets/js/password-strength.js" defer></script>');
      expect(page.text).to.match(/id="profile-new-password-rules" data-password-rules>Au moins 8 caractères/);
      expect(page.text).to.include('data-password-strength hidden');
    });

    it('shows the picture in the header of /admin and /account once set, the initial before', async () => {
      const client = await admin();
      const before = await client.get('/admin');
      expect(before.text).to.match(/<span class="avatar-initial" aria-hidden="true">A<\/span>/);
      await ctx
        .db('app_auth_users')
        .where({ id: client.user.id })
        .update({ image: '/uploads/avatars/' + 'c'.repeat(32) + '.png' });
      for (const path of ['/admin', '/account', '/admin/users']) {
        const page = await client.get(path);
        const header = /<header class="admin-header">[\s\S]*?<\/header>/.exec(page.text)![0];
        expect(header, path).to.include(`<img class="avatar avatar-small" src="/uploads/avatars/${'c'.repeat(32)}.png" alt="">`);
        expect(header, path).to.include('href="/admin/profile"');
      }
      const plain = await AdminClient.as(app, { name: 'Paul' });
      expect(/<header class="admin-header">[\s\S]*?<\/header>/.exec((await plain.get('/account')).text)![0]).to.include('href="/account"');
    });
  });

  describe('/admin/media', () => {
    it('says «Aucune image» with the upload panel open, folds the upload once images exist and gives sizes in French', async () => {
      const client = await admin();
      const empty = await client.get('/admin/media');
      expect(textOf(empty.text)).to.include('Aucune image');
      expect(empty.text).to.include('<details class="panel upload-panel" id="upload" open>');
      await insertMedia(ctx, { filename: 'media/' + 'd'.repeat(32) + '.png', original_name: 'grand.png', mime_type: 'image/png', size: 41_677 }, null);
      await insertMedia(
        ctx,
        { filename: 'media/' + 'e'.repeat(32) + '.png', original_name: 'petit.png', mime_type: 'image/png', size: 512, alt: 'Petit' },
        null,
      );
      const list = await client.get('/admin/media');
      expect(list.text).to.include('<details class="panel upload-panel" id="upload">');
      expect(list.text).to.include('40,7\u00a0Kio').and.include('512\u00a0octets').and.include('2\u00a0images');
      expect(textOf(list.text)).to.include('grand.png 40,7 Kio · sans texte alternatif').and.not.include('40.7');
      // Upload is the secondary task of the screen.
      expect(list.text).not.to.include('button-primary');
    });

    it('lists the pages using an image under «Utilisée par», with links to their editor, and offers deletion only when none does', async () => {
      const client = await admin();
      const media = await insertMedia(
        ctx,
        { filename: 'media/' + 'f'.repeat(32) + '.png', original_name: 'phare.png', mime_type: 'image/png', size: 2048 },
        null,
      );
      const unused = await client.get(`/admin/media/${media.id}`);
      expect(textOf(unused.text)).to.include('Utilisée par Aucune page n’utilise cette image.').and.include('Taille 2 Kio');
      expect(unused.text).to.include(`action="/admin/media/${media.id}/delete"`);
      const first = await createPage(ctx, { title: 'Bretagne', blocks: [{ type: 'image', media_id: media.id }] });
      const second = await createPage(ctx, {
        title: 'Armorique',
        blocks: [
          { type: 'paragraph', text: 'x' },
          { type: 'image', media_id: media.id },
        ],
      });
      await createPage(ctx, { title: 'Sans image', blocks: [] });
      const used = await client.get(`/admin/media/${media.id}`);
      const text = textOf(used.text);
      expect(text).to.include('Utilisée par 2 pages Armorique Bretagne');
      expect(used.text).to.include(`<a href="/admin/pages/${second.id}">Armorique</a>`).and.include(`<a href="/admin/pages/${first.id}">Bretagne</a>`);
      expect(used.text).not.to.include('Sans image').and.not.include(`action="/admin/media/${media.id}/delete"`);
      expect(text).to.include('ne peut pas être supprimée');
    });
  });
});
