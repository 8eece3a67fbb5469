// Pictures for the responsive images' tests, drawn as SVG and encoded by sharp (no binary
// file in the repository): a landscape with a sun, so that every rendition and crop has
// something to show.
import sharp from 'sharp';

function scene(width: number, height: number): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 400 300">
  <defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#5b8ed6"/><stop offset="1" stop-color="#f3d9b1"/></linearGradient></defs>
  <rect width="400" height="300" fill="url(#sky)"/>
  <circle cx="300" cy="80" r="30" fill="#fff1c9"/>
  <path d="M0 200 C80 160 160 190 240 170 S340 150 400 180 V300 H0 Z" fill="#6b8f4e"/>
  <path d="M0 250 C100 220 220 260 400 230 V300 H0 Z" fill="#3f5f2f"/>
</svg>`;
}

/** A JPEG of `width` × `height` pixels. */
export function photoJpeg(width: number, height: number): Promise<Buffer> {
  // Drawn small and enlarged: librsvg would take seconds to draw 12 megapixels.
  return sharp(Buffer.from(scene(400, 300)))
    .resize(width, height, { fit: 'fill' })
    .jpeg({ quality: 80 })
    .toBuffer();
}

/** A PNG of `width` × `height` pixels of one colour (compresses to almost nothing, whatever its size in pixels). */
export function flatPng(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#7a9cc6' }, limitInputPixels: false })
    .png({ compressionLevel: 9 })
    .toBuffer();
}
