// Counts and sizes as the screens write them (lib/quantities.ts).
import { expect } from 'chai';
import { countOf, fileSize, frenchNumber } from '../../lib/quantities.js';

describe('counts and sizes in French', () => {
  it('writes «Aucun compte», «1 compte», «N comptes», the number joined to its noun and thousands apart', () => {
    const accounts = (n: number) => countOf(n, 'compte', 'comptes', 'Aucun compte');
    expect(accounts(0)).to.equal('Aucun compte');
    expect(accounts(1)).to.equal('1\u00a0compte');
    expect(accounts(2)).to.equal('2\u00a0comptes');
    expect(accounts(1234)).to.equal('1\u202f234\u00a0comptes');
    expect(frenchNumber(1_000_000)).to.equal('1\u202f000\u202f000');
  });

  it('writes sizes in binary units with a decimal comma: octets, Kio, Mio', () => {
    expect(fileSize(0)).to.equal('0\u00a0octet');
    expect(fileSize(1)).to.equal('1\u00a0octet');
    expect(fileSize(512)).to.equal('512\u00a0octets');
    expect(fileSize(1024)).to.equal('1\u00a0Kio');
    expect(fileSize(41_677)).to.equal('40,7\u00a0Kio');
    expect(fileSize(2 * 1024 * 1024 - 1)).to.equal('2\u00a0Mio');
    expect(fileSize(1.5 * 1024 * 1024)).to.equal('1,5\u00a0Mio');
  });
});
