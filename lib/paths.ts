import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Compiled code runs from dist/, sources from the project root: both resolve views,
// public assets and data against the folder that holds package.json.
const here = path.dirname(fileURLToPath(import.meta.url));
const parent = path.resolve(here, '..');
export const projectRoot = path.basename(parent) === 'dist' ? path.resolve(parent, '..') : parent;
export const viewsDir = path.join(projectRoot, 'views');
export const publicDir = path.join(projectRoot, 'public');
/** The built-in themes (`default`, …): one folder each, holding its theme.json. */
export const builtInThemesDir = path.join(projectRoot, 'themes');
export const mailTemplatesDir = path.join(projectRoot, 'mail', 'templates');
