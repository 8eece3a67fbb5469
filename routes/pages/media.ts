import type { Router } from 'express';

// Media routes for image blocks (pages.manage); wired once the upload helper exists.
export function registerMediaApi(_api: Router): void {}
