// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// Review before publishing (issue 26, item 5) as a team meets it, in Chromium without
// JavaScript (every screen is plain forms): a Contributeur rewrites its page and submits
// it; the Éditeur gets the email (a real SMTP server), finds the page on the dashboard
// («À relire») and on the tree, compares it with the live version and sends it back
// with a comment; the Contributeur gets that comment, edits and submits again; the
// Éditeur approves and the page is live. Each step shows in the page's history and in
// the audit log; screens and emails keep French typography.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createPage } from '../../models/pages/pages.js';
import { useBrowserSite } from '../support/browser.js';
import { caller, makeUser } from '../support/fixtures.js';
import { startSmtpServer, type ReceivedMessage, type TestSmtpServer } from '../support/smtp.js';
import { assertFrenchTypography } from '../support/typography.js';

describe('teams: review before publishing in a browser', function () {
  this.timeout(180_000);
  let smtp: TestSmtpServer;
  // Filled before the site's app is made (hooks run in the order they are declared).
  const env: Record<string, string> = {};
  before(async () => {
    smtp = await startSmtpServer();
    env.SMTP_URL = smtp.url;
  });
  after(() => smtp?.close());
  const site = useBrowserSite(env);

  /** The `count`-th email to `to` (1 for the first), waiting for it. */
  async function nthEmail(to: string, count: number): Promise<ReceivedMessage> {
    for (;;) {
      const mine = smtp.messages.filter((message) => message.to.includes(to));
      if (mine.length >= count) return mine[count - 1];
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  const bodyText = async (tab: Page) => (await tab.locator('main').textContent())!.replace(/\s+/g, ' ');

  async function checkTypography(tab: Page, where: string): Promise<void> {
    assertFrenchTypography(await tab.locator('main').innerText(), where);
  }

  it('submit, send back with a comment, edit and submit again, approve: live, with every step in the history and the audit log', async () => {
    const { ctx } = site;
    const contributor = await caller(ctx, { role: 'contributor', name: 'Camille Contributrice', email: 'camille@example.com' });
    const editor = await caller(ctx, { role: 'editor', name: 'Élise Éditrice', email: 'elise@example.com' });
    const admin = await caller(ctx, { role: 'admin', name: 'Ada Admin', email: 'ada@example.com' });
    const bystander = await makeUser(ctx, { role: 'author', email: 'auteur@example.com' });
    const { id } = await createPage(
      ctx,
      { title: 'Horaires', blocks: [{ type: 'paragraph', text: 'Ouvert le mardi.' }] },
      { id: contributor.id, name: contributor.name, ip: null },
    );

    // The Contributeur rewrites its page and submits it from the editor's bar.
    const writer = await site.open({ javaScriptEnabled: false, cookie: contributor.cookie });
    await writer.goto(`${site.baseUrl}/admin/pages/${id}`);
    expect(await writer.getByRole('button', { name: 'Publier', exact: true }).count()).to.equal(0);
    await writer.locator('#b-0-text').fill('Ouvert le mardi et le jeudi.');
    await writer.locator('details.editor-review summary').click();
    await writer.getByLabel('Commentaire pour les relecteurs (facultatif)').fill('Le jeudi est ajouté.');
    await writer.getByRole('button', { name: 'Soumettre à la relecture', exact: true }).click();
    await writer.waitForURL(`${site.baseUrl}/admin/pages/${id}/review`);
    expect(await bodyText(writer))
      .to.include('Page soumise à la relecture')
      .and.include('En relecture');
    await checkTypography(writer, 'the review screen, after submitting');
    const first = (await ctx.db('app_page_reviews').where({ page_id: id }).first())!;
    expect(first.state).to.equal('in_review');

    // The Éditeur's email, the dashboard's «À relire» and the tree's badge.
    const submitted = await nthEmail(editor.email, 1);
    expect(submitted.subject).to.include('Une page attend une relecture');
    expect(submitted.text).to.include('Le jeudi est ajouté.');
    assertFrenchTypography(submitted.text, 'the submission email');
    const reviewer = await site.open({ javaScriptEnabled: false, cookie: editor.cookie });
    await reviewer.goto(`${site.baseUrl}/admin`);
    const queue = reviewer.locator('section[aria-labelledby="review-queue-title"]');
    expect(await queue.textContent())
      .to.include('Horaires')
      .and.include('Camille Contributrice');
    await checkTypography(reviewer, 'the dashboard');
    await reviewer.goto(`${site.baseUrl}/admin/pages`);
    expect(await reviewer.locator('.tree-row', { hasText: 'Horaires' }).locator('[data-review-state="in_review"]').textContent()).to.equal('En relecture');
    await reviewer.goto(`${site.baseUrl}${smtp.linkIn(submitted, `/admin/pages/${id}/review`).pathname}`);

    // The live version beside the revision in review, on the revisions' comparison screen.
    await reviewer.getByRole('link', { name: 'Comparer avec la version en ligne' }).click();
    await reviewer.waitForURL(/\/revisions\/compare\?/);
    const compared = await bodyText(reviewer);
    expect(compared).to.include('Ouvert le mardi.').and.include('Ouvert le mardi et le jeudi.');
    await reviewer.goBack();

    // Sent back with a comment.
    await reviewer.getByLabel('Ce qui est à reprendre').fill('Préciser les heures du jeudi.');
    await reviewer.getByRole('button', { name: 'Renvoyer à l’auteur' }).click();
    await reviewer.waitForLoadState();
    expect(await bodyText(reviewer))
      .to.include('Page renvoyée à son auteur avec le commentaire.')
      .and.include('Renvoyée');
    const rejected = await nthEmail(contributor.email, 1);
    expect(rejected.subject).to.include('Page renvoyée');
    expect(rejected.text).to.include('Préciser les heures du jeudi.');
    assertFrenchTypography(rejected.text, 'the email sending the page back');

    // The Contributeur edits and submits again.
    await writer.goto(`${site.baseUrl}/admin/pages/${id}`);
    await writer.locator('#b-0-text').fill('Ouvert le mardi, et le jeudi de 14 h à 18 h.');
    await writer.locator('details.editor-review summary').click();
    await writer.getByRole('button', { name: 'Soumettre à la relecture', exact: true }).click();
    await writer.waitForURL(`${site.baseUrl}/admin/pages/${id}/review`);
    expect(await bodyText(writer))
      .to.include('Préciser les heures du jeudi.')
      .and.include('Soumise de nouveau');
    const again = await nthEmail(editor.email, 2);
    expect(again.text).to.include('a soumis de nouveau la page');

    // The Éditeur approves: the page is live.
    await reviewer.goto(`${site.baseUrl}/admin/pages/${id}/review`);
    await reviewer.getByRole('button', { name: 'Approuver et publier' }).click();
    await reviewer.waitForLoadState();
    expect(await bodyText(reviewer))
      .to.include('Relecture approuvée')
      .and.include('Approuvée');
    const visitor = await site.open({ javaScriptEnabled: false });
    await visitor.goto(`${site.baseUrl}/horaires`);
    expect(await visitor.locator('main').textContent()).to.include('Ouvert le mardi, et le jeudi de 14 h à 18 h.');
    const approved = await nthEmail(contributor.email, 2);
    expect(approved.text).to.include('elle est en ligne');

    // Every step in the page's history…
    await reviewer.goto(`${site.baseUrl}/admin/pages/${id}/revisions`);
    const steps = await reviewer.locator('table.review-history tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-review-step')));
    expect(steps).to.deep.equal(['approved', 'resubmitted', 'rejected', 'submitted']);
    expect(await reviewer.locator('table.review-history').textContent())
      .to.include('Préciser les heures du jeudi.')
      .and.include('Élise Éditrice');
    await checkTypography(reviewer, 'the history');

    // … and in the audit log.
    const journal = await site.open({ javaScriptEnabled: false, cookie: admin.cookie });
    await journal.goto(`${site.baseUrl}/admin/audit`);
    const audit = await bodyText(journal);
    for (const label of [
      'Page soumise à la relecture',
      'Page renvoyée après relecture',
      'Page soumise de nouveau à la relecture',
      'Relecture approuvée',
      'Brouillon publié',
    ]) {
      expect(audit, label).to.include(label);
    }
    const actions = await ctx.db('app_audit_events').where('action', 'like', 'page.review_%').orderBy('id').pluck('action');
    expect(actions).to.deep.equal(['page.review_submitted', 'page.review_rejected', 'page.review_resubmitted', 'page.review_approved']);

    // Only the reviewers heard of the submissions, only the submitter of the answers.
    await ctx.background.settle();
    const recipients = new Set(smtp.messages.flatMap((message) => message.to));
    expect(recipients.has(bystander.email)).to.equal(false);
    expect(smtp.messages.filter((message) => message.to.includes(admin.email))).to.have.length(2);
  });
});
