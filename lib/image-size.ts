// An image's size in pixels read from its header by sharp's metadata (nothing is
// decoded), so that a decompression bomb is refused before anything expands it. sharp is
// loaded on first use and may be missing (an install without optional packages lacks its
// native part): the size is then unknown, and nothing on this server decodes the image.
import type Sharp from 'sharp';
import { lazyRequire } from './lazy-require.js';

const sharpPackage = lazyRequire<typeof Sharp>('sharp');

/** Largest image accepted, in pixels (width × height): 50 megapixels. */
export const MAX_IMAGE_PIXELS = 50_000_000;

/** sharp, or undefined when it cannot be loaded here. */
export function optionalSharp(): typeof Sharp | undefined {
  try {
    return sharpPackage();
  } catch {
    return undefined;
  }
}

export interface ImageSize {
  width: number;
  height: number;
}

/**
 * The upright size (EXIF orientation 5 to 8 turns the picture a quarter) from the header,
 * or undefined when sharp is missing or cannot read it.
 */
export async function imageSize(buffer: Buffer): Promise<ImageSize | undefined> {
  const sharp = optionalSharp();
  if (!sharp) return undefined;
  // No pixel limit here: the caller refuses with its own message, naming the limit.
  const metadata = await sharp(buffer, { limitInputPixels: false })
    .metadata()
    .catch(() => undefined);
  if (!metadata?.width || !metadata.height) return undefined;
  const turned = (metadata.orientation ?? 1) >= 5;
  return turned ? { width: metadata.height, height: metadata.width } : { width: metadata.width, height: metadata.height };
}
