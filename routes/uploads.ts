import { Router } from 'express';
import { serveUpload } from '../controllers/uploads/serve.js';

// Uploaded files (profile pictures, page media): public, read-only, no session.
export function uploadsRouter(): Router {
  const router = Router();
  router.get('/:dir/:file', serveUpload);
  return router;
}
