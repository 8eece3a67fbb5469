// What a `<picture>` of a media needs (views/pages/site/picture.njk): the original as
// `src`, its size (so the browser keeps the room: no layout shift), and a `srcset` per
// format from the renditions (AVIF, then WebP, then the original's format for the
// `<img>` itself, the original at its own width closing it). Until the renditions are
// made, the original alone is given.
import type { MediaRow, StoredCrop, StoredCrops, StoredRendition } from '../../lib/tables.js';
import { UPLOADS_URL_PREFIX } from '../../lib/uploads.js';

export interface Picture {
  src: string;
  width: number | null;
  height: number | null;
  /** `<source>` elements, most compact format first; empty until renditions exist. */
  sources: Array<{ type: string; srcset: string }>;
  /** The `<img>`'s own srcset (the original's format), when renditions exist. */
  srcset: string | null;
  /** The shared link's card (1200 × 630 around the focal point), once made. */
  social: { url: string; width: number; height: number } | null;
}

const SOURCE_TYPES: Array<{ format: StoredRendition['format']; type: string }> = [
  { format: 'avif', type: 'image/avif' },
  { format: 'webp', type: 'image/webp' },
];

const FORMAT_OF_TYPE: Record<string, StoredRendition['format']> = { 'image/jpeg': 'jpeg', 'image/png': 'png', 'image/webp': 'webp' };

function srcsetOf(entries: Array<{ name: string; width: number }>): string {
  return entries
    .sort((a, b) => a.width - b.width)
    .map((entry) => `${UPLOADS_URL_PREFIX}${entry.name} ${entry.width}w`)
    .join(', ');
}

export function pictureOf(row: Pick<MediaRow, 'filename' | 'mime_type' | 'width' | 'height' | 'renditions' | 'crops' | 'focal_x' | 'focal_y'>): Picture {
  const src = UPLOADS_URL_PREFIX + row.filename;
  const own = FORMAT_OF_TYPE[row.mime_type];
  const card = row.crops.social;
  const social =
    card && card.focal[0] === row.focal_x && card.focal[1] === row.focal_y
      ? { url: UPLOADS_URL_PREFIX + card.name, width: card.width, height: card.height }
      : null;
  if (!row.renditions.length || !row.width) return { src, width: row.width, height: row.height, sources: [], srcset: null, social };
  const of = (format: StoredRendition['format']) => row.renditions.filter((rendition) => rendition.format === format);
  const sources = SOURCE_TYPES.filter(({ format }) => format !== own && of(format).length).map(({ format, type }) => ({ type, srcset: srcsetOf(of(format)) }));
  // A WebP original is its own WebP source: the <img> carries it.
  const ownEntries = [...of(own), ...(of(own).some((rendition) => rendition.width === row.width) ? [] : [{ name: row.filename, width: row.width }])];
  return { src, width: row.width, height: row.height, sources, srcset: srcsetOf(ownEntries), social };
}

/** The names of the crops a row records. */
export function cropNames(crops: StoredCrops): string[] {
  return [crops.social, crops.square].filter((crop): crop is StoredCrop => crop !== undefined).map((crop) => crop.name);
}
