// Media library use cases of the pages module, called by both the JSON routes
// (/app/api/admin/media) and the screens (/admin/media): the file and its row go
// together, or neither stays.
import { inTransaction, type AppContext } from '../lib/context.js';
import { storedName } from '../lib/upload-names.js';
import { removeStoredFile, storeImage, type UploadedImage } from '../lib/uploads.js';
import type { Actor } from '../models/audit.js';
import { deleteMedia, insertMedia, type Media } from '../models/pages/media.js';

export interface MediaTexts {
  alt?: string;
  caption?: string;
}

/**
 * Stores the checked image under `media/` (ctx.uploads) and records it, asking for its
 * renditions (made in the background: services/pages-media-renditions.ts); a failed
 * insert removes the file.
 */
export async function addMedia(ctx: AppContext, actor: Actor | null, image: UploadedImage, texts: MediaTexts): Promise<Media> {
  const stored = await storeImage(ctx, image, 'media');
  try {
    return await insertMedia(
      ctx,
      {
        filename: stored.path,
        original_name: image.originalName.slice(0, 255),
        mime_type: stored.contentType,
        size: stored.size,
        width: image.width ?? null,
        height: image.height ?? null,
        ...texts,
      },
      actor,
    );
  } catch (error) {
    await removeStoredFile(ctx, stored.path);
    throw error;
  }
}

/**
 * Deletes a media no page uses (409 `media_in_use` otherwise), then its files (the
 * original, its renditions and crops). With database storage the bytes go in the row's
 * transaction; files on disk are removed once the row is gone, best effort (a failure
 * is only logged). Renditions being made meanwhile are removed by their maker, which
 * finds the row gone.
 */
export async function removeMedia(ctx: AppContext, id: number, actor: Actor | null = null): Promise<Media> {
  const { files, ...media } = await inTransaction(ctx, async (tx) => {
    const removed = await deleteMedia(tx, id, actor);
    for (const file of removed.files) {
      const name = storedName(file);
      if (name) await tx.uploads.database.remove(name, tx.db);
    }
    return removed;
  });
  for (const file of files) {
    await removeStoredFile(ctx, file).catch((error: unknown) => ctx.logger.warn({ err: error, mediaId: media.id, file }, 'media file could not be removed'));
  }
  return media;
}
