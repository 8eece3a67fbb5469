// The sample site's picture (a JPEG of 1200 × 675, about 20 kB: sky, hills, a kiln's
// chimney), drawn as SVG and encoded by sharp: no binary file in the repository. sharp
// is loaded on first use: an install without optional packages (`npm ci --omit=optional`)
// lacks its native part, and must still start (the sample site is then skipped, logged).
import type Sharp from 'sharp';
import { lazyRequire } from '../lib/lazy-require.js';

const sharp = lazyRequire<typeof Sharp>('sharp');

export function samplePhoto(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="675" viewBox="0 0 1200 675">
  <defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#f6c28b"/><stop offset="1" stop-color="#fbe7d0"/></linearGradient></defs>
  <rect width="1200" height="675" fill="url(#sky)"/>
  <circle cx="880" cy="190" r="70" fill="#fff3dc"/>
  <path d="M0 430 C200 360 380 400 560 380 S900 330 1200 390 V675 H0 Z" fill="#b86b4b"/>
  <path d="M0 520 C260 470 520 520 760 490 S1060 470 1200 500 V675 H0 Z" fill="#7d4331"/>
  <rect x="300" y="250" width="46" height="190" fill="#4a2a20"/>
  <rect x="220" y="400" width="220" height="120" rx="10" fill="#5c3326"/>
</svg>`;
  return sharp()(Buffer.from(svg)).jpeg({ quality: 78, progressive: true }).toBuffer();
}
