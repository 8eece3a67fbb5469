// lib/cookies.ts: the one reader of the Cookie header (CSRF, pending second step, kept forms).
import { expect } from 'chai';
import { readCookie } from '../../lib/cookies.js';

const sent = (cookie?: string) => ({ headers: cookie === undefined ? {} : { cookie } });

describe('readCookie (lib/cookies.ts)', () => {
  it('reads the named cookie among others, with or without spaces, and nothing else', () => {
    const request = sent('site.sid=s%3Aabc.def;site.csrf=token-1;  site.2fa = xyz ');
    expect(readCookie(request, 'site.csrf')).to.equal('token-1');
    expect(readCookie(request, 'site.sid')).to.equal('s:abc.def');
    expect(readCookie(request, 'site.2fa')).to.equal('xyz');
    expect(readCookie(request, 'site')).to.equal(undefined);
    expect(readCookie(request, 'csrf')).to.equal(undefined);
    expect(readCookie(sent(), 'site.csrf')).to.equal(undefined);
    expect(readCookie(sent(''), 'site.csrf')).to.equal(undefined);
  });

  it('takes the first of two cookies of the same name, as the browsers send the most specific first', () => {
    expect(readCookie(sent('site.csrf=first; site.csrf=second'), 'site.csrf')).to.equal('first');
  });

  it('keeps a value with a malformed escape as sent instead of failing', () => {
    expect(readCookie(sent('site.form=%E0%A4%A'), 'site.form')).to.equal('%E0%A4%A');
    expect(readCookie(sent('site.form="quoted"'), 'site.form')).to.equal('quoted');
  });
});
