// Review before publishing (issue 26, item 5), through the JSON API: submit, read,
// approve, send back; the 409 of a stale revision, the 403 of whoever may not review,
// the emails (a real SMTP server) and the opt-out on /account. Each test checks the
// answer, the rows written, the audit log and the emails.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { saveDraft } from '../../models/pages/drafts.js';
import { grantOnPage } from '../../models/pages/grants.js';
import { createPage } from '../../models/pages/pages.js';
import type { User } from '../../models/auth/users.js';
import { useAppWithSmtp, type App } from '../support/app.js';
import { AdminClient } from '../support/admin-client.js';
import { caller, makeUser, type LoggedIn } from '../support/fixtures.js';
import type { TestSmtpServer } from '../support/smtp.js';

type Someone = User & LoggedIn;

describe('teams: review before publishing (/app/api/admin/pages/:id/review)', () => {
  let app: App;
  let ctx: AppContext;
  let smtp: TestSmtpServer;
  useAppWithSmtp({}, (a, s, c) => {
    app = a;
    smtp = s;
    ctx = c;
  });

  const api = (who: Someone) => ({
    get: (path: string) => request(app).get(`/app/api/admin/pages${path}`).set('Cookie', who.cookie),
    post: (path: string, body?: object) => {
      const req = request(app).post(`/app/api/admin/pages${path}`).set('Cookie', who.cookie);
      return body ? req.send(body) : req;
    },
    put: (path: string, body: object) => request(app).put(`/app/api/admin/pages${path}`).set('Cookie', who.cookie).send(body),
  });

  /** A contributor's never-published page (its draft is revision 1), and an editor to review it. */
  async function world() {
    const contributor = await caller(ctx, { role: 'contributor', name: 'Camille Contributrice' });
    const editor = await caller(ctx, { role: 'editor', name: 'Élise Éditrice' });
    const page = await createPage(ctx, { title: 'Atelier poterie' }, { id: contributor.id, name: contributor.name, ip: null }, undefined, { publish: false });
    return { contributor, editor, id: page.id };
  }

  const review = (id: number) => ctx.db('app_page_reviews').where({ page_id: id }).orderBy('id', 'desc').first();
  const page = async (id: number) => (await ctx.db('app_pages').where({ id }).first())!;
  const audit = async (action: string) => ctx.db('app_audit_events').where({ action }).orderBy('id');
  const settled = () => ctx.background.settle();

  it('a Contributeur submits its draft: 202 in_review, the review and its step written, audited, every reviewer emailed (not the submitter)', async () => {
    const { contributor, editor, id } = await world();
    const admin = await makeUser(ctx, { role: 'admin' });
    const bystander = await makeUser(ctx, { role: 'author' });
    const answer = await api(contributor).post(`/${id}/review`, { comment: 'Première version, à relire.' });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(202);
    expect(answer.body).to.include({ state: 'in_review', revision: 1, page_id: id });
    expect(answer.body.submitted_by).to.deep.equal({ id: contributor.id, name: 'Camille Contributrice' });
    expect(answer.body.comments).to.have.length(1);
    expect(answer.body.comments[0]).to.include({ kind: 'submitted', revision: 1, comment: 'Première version, à relire.' });

    expect(await review(id)).to.include({ state: 'in_review', revision: 1, submitted_by: contributor.id });
    const [event] = await audit('page.review_submitted');
    expect(event).to.include({ actor_id: contributor.id, target_type: 'page', target_id: String(id) });
    expect(event.details).to.deep.include({ revision: 1, comment: 'Première version, à relire.' });

    const mail = await smtp.waitForMessage(editor.email);
    expect(mail.subject).to.include('Une page attend une relecture').and.include('Atelier poterie');
    expect(mail.text).to.include('Camille Contributrice a soumis la page').and.include('Première version, à relire.');
    expect(smtp.linkIn(mail, `/admin/pages/${id}/review`).origin).to.equal('http://site.test');
    await smtp.waitForMessage(admin.email);
    await settled();
    const recipients = smtp.messages.flatMap((message) => message.to);
    expect(recipients).to.not.include(contributor.email).and.not.include(bystander.email);
    expect(recipients).to.have.length(2);
  });

  it('GET …/review answers the state, the revision, who and when, and the comments; 404 for a page never submitted', async () => {
    const { contributor, editor, id } = await world();
    const never = await api(editor).get(`/${id}/review`);
    expect(never.status).to.equal(404);
    expect(never.body.code).to.equal('review_not_found');
    await api(contributor).post(`/${id}/review`);
    const shown = await api(editor).get(`/${id}/review`);
    expect(shown.status).to.equal(200);
    expect(shown.body).to.include({ state: 'in_review', revision: 1 });
    expect(shown.body.submitted_by.id).to.equal(contributor.id);
    expect(new Date(shown.body.submitted_at).getTime()).to.be.closeTo(ctx.clock.nowMs(), 60_000);
    expect(shown.body.comments.map((c: { kind: string }) => c.kind)).to.deep.equal(['submitted']);
    expect(shown.body.comments[0].comment).to.equal(null);
  });

  it('a draft changed after submission stays in review with its new revision; approving the old one is 409 and publishes nothing', async () => {
    const { contributor, editor, id } = await world();
    await api(contributor).post(`/${id}/review`);
    const saved = await api(contributor).put(`/${id}/draft`, { title: 'Atelier poterie, corrigé' });
    expect(saved.status).to.equal(200);
    const revision = saved.body.draft_revision as number;
    expect(revision).to.equal(2);
    expect(await review(id)).to.include({ state: 'in_review', revision });
    expect((await api(editor).get(`/${id}/review`)).body.revision).to.equal(revision);

    const stale = await api(editor).post(`/${id}/review/approve`, { revision: 1 });
    expect(stale.status).to.equal(409);
    expect(stale.body).to.include({ code: 'review_revision_changed', revision });
    expect(await page(id)).to.include({ published_revision: null, draft_revision: revision });
    expect(await review(id)).to.include({ state: 'in_review' });
    expect(await audit('page.review_approved')).to.have.length(0);

    const approved = await api(editor).post(`/${id}/review/approve`, { revision, comment: 'Parfait.' });
    expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
    expect(approved.body).to.include({ state: 'approved', revision, scheduled_at: null });
    expect(approved.body.page).to.include({ id, title: 'Atelier poterie, corrigé', visibility: 'public' });
    expect(await page(id)).to.include({ title: 'Atelier poterie, corrigé', draft_revision: null, visibility: 'public' });
    expect(await review(id)).to.include({ state: 'approved', decided_by: editor.id });
    expect((await audit('page.review_approved'))[0]).to.include({ actor_id: editor.id });
    expect((await audit('page.draft_published'))[0]).to.include({ actor_id: editor.id });
    const published = await request(app).get('/app/api/pages/by-path?path=atelier-poterie');
    expect(published.status).to.equal(200);
    expect(published.body.title).to.equal('Atelier poterie, corrigé');

    const mail = await smtp.waitForMessage(contributor.email);
    expect(mail.subject).to.include('Page approuvée');
    expect(mail.text).to.include('Élise Éditrice a approuvé la page').and.include('elle est en ligne').and.include('Parfait.');
  });

  it('sending back needs a comment (400, nothing written); with one: 200, back to draft, the submitter emailed with it; a resubmission continues the thread', async () => {
    const { contributor, editor, id } = await world();
    await api(contributor).post(`/${id}/review`);
    const first = (await review(id))!;
    const bare = await api(editor).post(`/${id}/review/reject`, { comment: '   ' });
    expect(bare.status).to.equal(400);
    expect(await review(id)).to.include({ state: 'in_review' });

    const sent = await api(editor).post(`/${id}/review/reject`, { comment: 'Il manque les horaires.' });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
    expect(sent.body).to.include({ state: 'rejected', revision: 1 });
    expect(await page(id)).to.include({ published_revision: null, draft_revision: 1 });
    expect((await audit('page.review_rejected'))[0].details).to.deep.include({ comment: 'Il manque les horaires.' });
    const mail = await smtp.waitForMessage(contributor.email);
    expect(mail.subject).to.include('Page renvoyée');
    expect(mail.text).to.include('Il manque les horaires.');

    // Approving or sending back what is no longer in review: 409.
    expect((await api(editor).post(`/${id}/review/approve`, { revision: 1 })).body.code).to.equal('not_in_review');

    await api(contributor).put(`/${id}/draft`, { title: 'Atelier poterie (horaires)' });
    const again = await api(contributor).post(`/${id}/review`, { comment: 'Horaires ajoutés.' });
    expect(again.status).to.equal(202);
    expect(again.body.revision).to.equal(2);
    expect(again.body.comments.map((c: { kind: string }) => c.kind)).to.deep.equal(['submitted', 'rejected', 'resubmitted']);
    expect((await review(id))!.id).to.equal(first.id);
    expect(await audit('page.review_resubmitted')).to.have.length(1);
  });

  it('whoever may not review gets 403 on approve and reject, with nothing written; a Contributeur’s publish is 403 too', async () => {
    const { contributor, id } = await world();
    const author = await caller(ctx, { role: 'author' });
    await api(contributor).post(`/${id}/review`);
    for (const who of [contributor, author]) {
      expect((await api(who).post(`/${id}/review/approve`, { revision: 1 })).status).to.equal(403);
      expect((await api(who).post(`/${id}/review/reject`, { comment: 'Non.' })).status).to.equal(403);
    }
    expect((await api(contributor).post(`/${id}/publish`)).status).to.equal(403);
    expect(await review(id)).to.include({ state: 'in_review' });
    expect(await page(id)).to.include({ published_revision: null });
    // Nor may one submit another's page without pages.manage.
    expect((await api(author).post(`/${id}/review`)).status).to.equal(403);
  });

  it('submitting twice is 409 already_in_review; a page without a draft is 409 no_draft', async () => {
    const { contributor, editor, id } = await world();
    expect((await api(contributor).post(`/${id}/review`)).status).to.equal(202);
    const twice = await api(contributor).post(`/${id}/review`);
    expect(twice.status).to.equal(409);
    expect(twice.body.code).to.equal('already_in_review');
    const live = await createPage(ctx, { title: 'Déjà en ligne' }, { id: editor.id, name: editor.name, ip: null });
    const none = await api(editor).post(`/${live.id}/review`);
    expect(none.status).to.equal(409);
    expect(none.body.code).to.equal('no_draft');
    expect(await ctx.db('app_page_reviews').where({ page_id: live.id })).to.have.length(0);
  });

  it('a time asked at submission: approval schedules it (202 of nothing live yet); a draft changed then goes back to review and loses the schedule', async () => {
    const { contributor, editor, id } = await world();
    const at = new Date(ctx.clock.nowMs() + 86_400_000);
    const submitted = await api(contributor).post(`/${id}/review`, { at: at.toISOString() });
    expect(submitted.status).to.equal(202);
    expect(new Date(submitted.body.publish_at).getTime()).to.equal(at.getTime());
    const past = await api(contributor).post(`/${id}/review`, { at: new Date(ctx.clock.nowMs() - 1000).toISOString() });
    expect(past.status).to.equal(400);

    const approved = await api(editor).post(`/${id}/review/approve`, { revision: 1 });
    expect(approved.status).to.equal(200);
    expect(new Date(approved.body.scheduled_at).getTime()).to.equal(at.getTime());
    expect(approved.body.page).to.equal(null);
    expect(await page(id)).to.include({ published_revision: null, scheduled_by: editor.id });
    expect((await page(id)).scheduled_at!.getTime()).to.equal(at.getTime());
    expect((await smtp.waitForMessage(contributor.email)).text).to.include('sa publication est programmée le');

    await saveDraft(ctx, id, { title: 'Changé après l’approbation' }, { id: contributor.id, name: contributor.name, ip: null });
    expect(await page(id)).to.include({ scheduled_at: null, draft_revision: 2 });
    expect(await review(id)).to.include({ state: 'in_review', revision: 2 });
  });

  it('a draft published or discarded outside the review closes it', async () => {
    const { contributor, editor, id } = await world();
    await api(contributor).post(`/${id}/review`);
    expect((await api(editor).post(`/${id}/publish`)).status).to.equal(200);
    expect(await review(id)).to.include({ state: 'closed' });
    expect((await api(editor).get(`/${id}/review`)).body.state).to.equal('closed');
  });

  it('emails turned off on /account: the reviewer gets no submission, the submitter no answer', async () => {
    const { contributor, editor, id } = await world();
    const other = await makeUser(ctx, { role: 'editor' });
    for (const who of [editor, contributor]) {
      const client = new AdminClient(app, who);
      const profile = await client.get('/account');
      expect(profile.text).to.include('name="review_emails"').and.include(' checked');
      const off = await client.post('/account/review-emails', {});
      expect(off.status).to.equal(303);
      expect((await client.follow(off)).text).to.include('Les courriels de relecture sont désactivés.');
      expect(await ctx.db('app_auth_users').where({ id: who.id }).first('review_emails')).to.deep.equal({ review_emails: false });
    }
    await api(contributor).post(`/${id}/review`);
    await smtp.waitForMessage(other.email);
    await api(editor).post(`/${id}/review/reject`, { comment: 'À reprendre.' });
    await settled();
    const recipients = smtp.messages.flatMap((message) => message.to);
    expect(recipients).to.deep.equal([other.email]);

    // Ticked again: the emails come back.
    const client = new AdminClient(app, contributor);
    expect((await client.post('/account/review-emails', { review_emails: 'on' })).status).to.equal(303);
    expect(await ctx.db('app_auth_users').where({ id: contributor.id }).first('review_emails')).to.deep.equal({ review_emails: true });
  });

  it('a role granted pages.review on a section is emailed for the pages in it, not for a page outside', async () => {
    const contributor = await caller(ctx, { role: 'contributor', name: 'Camille Contributrice' });
    const sectionReviewer = await caller(ctx, { permissions: ['admin.access'], name: 'Relectrice de rubrique' });
    const roleId = (await ctx.db('app_auth_users').where({ id: sectionReviewer.id }).first('role_id'))!.role_id;
    const as = { id: contributor.id, name: contributor.name, ip: null };
    const section = await createPage(ctx, { title: 'Rubrique' }, as, undefined, { publish: false });
    const inside = await createPage(ctx, { title: 'Sous la rubrique', parent_id: section.id }, as, undefined, { publish: false });
    const outside = await createPage(ctx, { title: 'Ailleurs' }, as, undefined, { publish: false });
    await grantOnPage(ctx, section.id, roleId, ['pages.review'], null);

    expect((await api(contributor).post(`/${outside.id}/review`)).status).to.equal(202);
    await settled();
    expect(smtp.messages.flatMap((message) => message.to)).to.not.include(sectionReviewer.email);

    expect((await api(contributor).post(`/${inside.id}/review`)).status).to.equal(202);
    const mail = await smtp.waitForMessage(sectionReviewer.email);
    expect(mail.subject).to.include('Sous la rubrique');
    expect(smtp.linkIn(mail, `/admin/pages/${inside.id}/review`).pathname).to.equal(`/admin/pages/${inside.id}/review`);
  });
});
