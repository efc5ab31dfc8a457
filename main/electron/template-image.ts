/**
 * macOS tray icons as template images: black plus alpha, which the menu bar tints for light and dark mode
 * and for the highlighted state (Electron's nativeImage docs: "Template images consist of black and an alpha
 * channel"). Our state icons are coloured discs with a white glyph cut in; as a template the disc stays
 * opaque and the glyph becomes a hole, so the shape still tells the state apart without colour.
 */
import { nativeImage, type NativeImage } from 'electron';

/** At or below this luminance a pixel is part of the shape; white (the glyph) becomes transparent. */
const SHAPE_LUMINANCE = 0.75;

/** BGRA pixels (Electron's bitmap order) → template pixels: black, alpha from how dark the pixel was. */
export function templatePixels(bgra: Uint8Array): Buffer {
  const out = Buffer.alloc(bgra.length);
  for (let i = 0; i + 3 < bgra.length; i += 4) {
    const b = bgra[i] ?? 0;
    const g = bgra[i + 1] ?? 0;
    const r = bgra[i + 2] ?? 0;
    const a = bgra[i + 3] ?? 0;
    const luminance = (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
    const shape = Math.min(1, Math.max(0, (1 - luminance) / (1 - SHAPE_LUMINANCE)));
    out[i + 3] = Math.round(a * shape);
  }
  return out;
}

/** The template version of an icon, at each of its scale factors. */
export function templateTrayImage(image: NativeImage, scaleFactors: readonly number[] = [1, 2]): NativeImage {
  let template: NativeImage | null = null;
  for (const scaleFactor of scaleFactors) {
    const { width, height } = image.getSize(scaleFactor);
    const buffer = templatePixels(image.toBitmap({ scaleFactor }));
    if (template === null) template = nativeImage.createFromBitmap(buffer, { width, height, scaleFactor });
    else template.addRepresentation({ scaleFactor, width, height, buffer });
  }
  if (template === null) return image;
  template.setTemplateImage(true);
  return template;
}
