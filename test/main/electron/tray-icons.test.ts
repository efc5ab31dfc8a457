import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { TRAY_ICON_PNGS } from '../../../main/electron/tray-icons';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Reads a PNG's size and checks it decodes to the size its header claims (RGBA, one filter byte a row). */
function pngSize(png: Buffer): { width: number; height: number } {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    if (png.toString('ascii', at + 4, at + 8) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  expect(inflateSync(Buffer.concat(idat))).toHaveLength(height * (width * 4 + 1));
  return { width, height };
}

describe('tray icons', () => {
  it.each(Object.entries(TRAY_ICON_PNGS))('%s: 16 px and 32 px PNGs', (_state, pngs) => {
    expect(pngSize(Buffer.from(pngs.x1, 'base64'))).toEqual({ width: 16, height: 16 });
    expect(pngSize(Buffer.from(pngs.x2, 'base64'))).toEqual({ width: 32, height: 32 });
  });

  it('every state looks different', () => {
    const images = Object.values(TRAY_ICON_PNGS).map((p) => p.x1);
    expect(new Set(images).size).toBe(images.length);
  });

  it('the committed icons are what build/generate-icons.mjs draws', () => {
    expect(() =>
      execFileSync(process.execPath, ['build/generate-icons.mjs', '--check'], { cwd: root, stdio: 'pipe' }),
    ).not.toThrow();
  });
});
