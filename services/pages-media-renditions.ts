// The media renditions, made in the background by every process that has sharp: widths
// 320, 640, 960, 1280 and 1920 up to the original's (the original's own width closes the
// list when it is smaller than 1920), each in AVIF and WebP beside the original's format
// (the original itself stands for its own format at its own width), and two crops around
// the focal point: the shared link's card (1200 × 630) and the administration's square
// thumbnail. Stored through ctx.uploads beside the original (`<name>-w640.avif`), so every
// host serves them; until they are recorded on the media row, pages show the original.
//
// The queue is durable (models/pages/media-jobs.ts): one media at a time per process (a
// claim with a lease, renewed while it works), so a 4000 × 3000 picture never holds
// more than libvips' own threads; each file is written only when missing, so work taken
// again after a crash skips what was done. A stop gives the claim back between two files.
import type Sharp from 'sharp';
import { warnOnce, type AppContext } from '../lib/context.js';
import { MAX_IMAGE_PIXELS, optionalSharp } from '../lib/image-size.js';
import type { MediaRow, StoredCrops, StoredRendition } from '../lib/tables.js';
import { contentTypeOf } from '../lib/upload-names.js';
import {
  abandonRenditions,
  claimRenditionJob,
  completeRenditions,
  failRenditions,
  releaseRenditions,
  renewLease,
  type RenditionJob,
} from '../models/pages/media-jobs.js';
import { cropNames } from '../models/pages/media-pictures.js';
import { MEDIA_COLUMNS } from '../models/pages/media.js';
import { MEDIA_TABLE } from '../models/pages/schema.js';

const RENDITION_WIDTHS = [320, 640, 960, 1280, 1920];
const SOCIAL_CARD = { width: 1200, height: 630 };
const SQUARE_THUMBNAIL = 320;

export interface RenditionOptions {
  /** How long a claim holds without being renewed (renewed every third of it). */
  leaseMs?: number;
  /** How often a process looks for work. */
  intervalMs?: number;
}

const DEFAULTS: Required<RenditionOptions> = { leaseMs: 30_000, intervalMs: 1000 };

type Format = StoredRendition['format'];
const EXTENSIONS: Record<Format, string> = { avif: 'avif', webp: 'webp', jpeg: 'jpg', png: 'png' };
const FORMAT_OF_TYPE: Record<string, Format> = { 'image/jpeg': 'jpeg', 'image/png': 'png', 'image/webp': 'webp' };

/** The widths made for an original `width` pixels wide. */
export function renditionWidths(width: number): number[] {
  const top = Math.min(width, RENDITION_WIDTHS[RENDITION_WIDTHS.length - 1]);
  return [...RENDITION_WIDTHS.filter((candidate) => candidate < top), top];
}

class Stopped extends Error {}

function encode(image: Sharp.Sharp, format: Format): Sharp.Sharp {
  switch (format) {
    // effort 2 of 9: a 1920-pixel AVIF in about a second, within a few percent of the smallest.
    case 'avif':
      return image.avif({ quality: 50, effort: 2 });
    case 'webp':
      return image.webp({ quality: 75 });
    case 'jpeg':
      return image.jpeg({ quality: 80, mozjpeg: true });
    case 'png':
      return image.png({ compressionLevel: 9 });
  }
}

/** The largest box of `ratio` (width / height) inside the picture, centred on the focal point as far as the edges allow. */
function cropAround(width: number, height: number, ratio: number, focal: [number, number]): Sharp.Region {
  const boxWidth = Math.min(width, Math.round(height * ratio));
  const boxHeight = Math.min(height, Math.round(boxWidth / ratio));
  const place = (size: number, box: number, percent: number) => Math.min(size - box, Math.max(0, Math.round((percent / 100) * size - box / 2)));
  return { left: place(width, boxWidth, focal[0]), top: place(height, boxHeight, focal[1]), width: boxWidth, height: boxHeight };
}

interface Work {
  ctx: AppContext;
  sharp: typeof Sharp;
  upright: Buffer;
  base: string;
  stopped: () => boolean;
}

/** Writes `name` unless an earlier attempt already did. */
async function storeOnce(work: Work, name: string, make: () => Promise<Buffer>): Promise<void> {
  if (work.stopped()) throw new Stopped();
  if (await work.ctx.uploads.exists(name)) return;
  await work.ctx.uploads.put(name, await make(), contentTypeOf(name));
}

async function makeFiles(work: Work, row: MediaRow, width: number, height: number): Promise<{ renditions: StoredRendition[]; crops: StoredCrops }> {
  const { sharp, upright, base } = work;
  const own = FORMAT_OF_TYPE[row.mime_type] ?? 'jpeg';
  const formats: Format[] = own === 'webp' ? ['avif', 'webp'] : ['avif', 'webp', own];
  const renditions: StoredRendition[] = [];
  for (const target of renditionWidths(width)) {
    for (const format of formats) {
      // The original is its own format at its own width.
      if (format === own && target === width) continue;
      const name = `${base}-w${target}.${EXTENSIONS[format]}`;
      await storeOnce(work, name, () => encode(sharp(upright, { limitInputPixels: MAX_IMAGE_PIXELS }).resize({ width: target }), format).toBuffer());
      renditions.push({ width: target, height: Math.max(1, Math.round((height * target) / width)), format, name });
    }
  }
  const focal: [number, number] = [row.focal_x, row.focal_y];
  const crop = async (name: string, ratio: number, box: { width: number; height: number }, format: Format) => {
    const region = cropAround(width, height, ratio, focal);
    await storeOnce(work, name, () =>
      encode(
        sharp(upright, { limitInputPixels: MAX_IMAGE_PIXELS })
          .extract(region)
          .resize({ ...box, fit: 'fill', withoutEnlargement: true }),
        format,
      ).toBuffer(),
    );
    const scale = Math.min(1, box.width / region.width);
    return { name, width: Math.round(region.width * scale), height: Math.round(region.height * scale), focal };
  };
  const crops: StoredCrops = {
    social: await crop(`${base}-og-${focal[0]}-${focal[1]}.jpg`, SOCIAL_CARD.width / SOCIAL_CARD.height, SOCIAL_CARD, 'jpeg'),
    square: await crop(`${base}-sq-${focal[0]}-${focal[1]}.webp`, 1, { width: SQUARE_THUMBNAIL, height: SQUARE_THUMBNAIL }, 'webp'),
  };
  return { renditions, crops };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Makes what one claim asks for, and records it; a stop gives the claim back. */
async function runJob(ctx: AppContext, sharp: typeof Sharp, job: RenditionJob, stopped: () => boolean): Promise<void> {
  const row: MediaRow | undefined = await ctx.db(MEDIA_TABLE).where({ id: job.mediaId }).first(MEDIA_COLUMNS);
  if (!row) return;
  const original = await ctx.uploads.open(row.filename);
  if (!original) return abandonRenditions(ctx, job, 'original file missing');
  const bytes = await readAll(original.read());
  const metadata = await sharp(bytes, { limitInputPixels: false })
    .metadata()
    .catch(() => undefined);
  if (!metadata?.width || !metadata.height) return abandonRenditions(ctx, job, 'unreadable image');
  if (metadata.width * metadata.height > MAX_IMAGE_PIXELS) return abandonRenditions(ctx, job, 'over 50 megapixels');
  // Turned upright once (EXIF orientation), so that every rendition and crop is.
  const upright = (metadata.orientation ?? 1) > 1 ? await sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS }).rotate().toBuffer() : bytes;
  const turned = (metadata.orientation ?? 1) >= 5;
  const width = turned ? metadata.height : metadata.width;
  const height = turned ? metadata.width : metadata.height;
  const base = row.filename.slice(0, row.filename.lastIndexOf('.'));
  const made = await makeFiles({ ctx, sharp, upright, base, stopped }, row, width, height);
  const before = await completeRenditions(ctx, job, { width, height, ...made });
  if (!before) {
    // Deleted while being made: what was written is nobody's.
    const media = await ctx.db(MEDIA_TABLE).where({ id: job.mediaId }).first('id');
    if (!media) for (const name of [...made.renditions.map((r) => r.name), ...cropNames(made.crops)]) await ctx.uploads.remove(name);
    return;
  }
  // The crops of an earlier focal point.
  const kept = new Set(cropNames(made.crops));
  for (const name of cropNames(before.crops)) if (!kept.has(name)) await ctx.uploads.remove(name);
  ctx.logger.info({ mediaId: job.mediaId, renditions: made.renditions.length, attempt: job.attempts }, 'media renditions made');
}

/** Runs one claim with its lease renewed meanwhile; a failure is recorded on the row (retried later). */
async function runClaim(ctx: AppContext, sharp: typeof Sharp, job: RenditionJob, options: Required<RenditionOptions>, stopped: () => boolean): Promise<void> {
  const renewal = setInterval(() => void renewLease(ctx, job, options.leaseMs).catch(() => undefined), Math.max(100, Math.floor(options.leaseMs / 3)));
  try {
    await runJob(ctx, sharp, job, stopped);
  } catch (error) {
    if (error instanceof Stopped) return releaseRenditions(ctx, job);
    ctx.logger.warn({ mediaId: job.mediaId, err: error instanceof Error ? error.message : String(error) }, 'media renditions failed: retried later');
    await failRenditions(ctx, job, error instanceof Error ? error.message : String(error));
  } finally {
    clearInterval(renewal);
  }
}

/** Makes every rendition due now, one media after the other, until none is left or `stopped()`; returns how many claims ran. */
export async function makeDueRenditions(ctx: AppContext, options: RenditionOptions = {}, stopped: () => boolean = () => false): Promise<number> {
  const settings = { ...DEFAULTS, ...options };
  let claims = 0;
  while (!stopped()) {
    const job = await claimRenditionJob(ctx, settings.leaseMs);
    if (!job) break;
    // Loaded with the first job, never at start: libvips' native library costs every
    // process's start (a cluster's replacement worker included) when most have no image to make.
    const sharp = optionalSharp();
    if (!sharp) {
      await releaseRenditions(ctx, job);
      warnWithoutSharp(ctx);
      break;
    }
    claims++;
    await runClaim(ctx, sharp, job, settings, stopped);
  }
  return claims;
}

/** Said once per process: without sharp, the originals are served (another host with sharp makes the renditions). */
function warnWithoutSharp(ctx: AppContext): void {
  warnOnce(
    ctx,
    'media renditions: no sharp',
    'sharp cannot be loaded (installed without optional packages?): this process makes no image renditions, originals are served',
  );
}

/**
 * The background job (routes/pages/index.ts): looks for work every `intervalMs`, one
 * claim at a time in this process. Without sharp it says so once and does nothing (the
 * originals are served; another host with sharp makes the renditions).
 */
export function startMediaRenditions(ctx: AppContext, options: RenditionOptions = {}): () => void {
  const settings = { ...DEFAULTS, ...options };
  let running = false;
  let stopped = false;
  const check = () => {
    if (running || stopped) return;
    running = true;
    ctx.background.run('media renditions', async () => {
      try {
        await makeDueRenditions(ctx, settings, () => stopped);
      } finally {
        running = false;
      }
    });
  };
  check();
  const timer = setInterval(check, settings.intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
