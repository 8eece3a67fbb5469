// The settings module's public rows.
import type { Call } from '../../routes/define.js';

// GET /site-accent/<rrggbb>.css — the accent colour as a stylesheet: its name is its
// content, so it never changes (immutable), and no inline style is needed under the CSP.
export function serveAccentStylesheet(call: Call<{ file: string }>): void {
  const colour = call.params.file.slice(0, 6);
  call.res.set('Content-Type', 'text/css; charset=utf-8');
  call.res.set('Cache-Control', 'public, max-age=31536000, immutable');
  call.res.send(`:root { --accent: #${colour}; }\n`);
}
