#!/usr/bin/env node
/**
 * Draws Runwarden's icons procedurally (no downloads, no image tools): the app icon for electron-builder
 * (build/icon.png, 512 px) and one tray icon per tray state at 16 and 32 px (build/tray/*.png), and writes
 * the tray PNGs as base64 into main/electron/tray-icons.ts so the main bundle carries them (no asset paths
 * to resolve inside app.asar). Shapes differ per state, not only colours, so the state reads without colour.
 *
 *   node build/generate-icons.mjs          write the files
 *   node build/generate-icons.mjs --check  exit 1 if a committed file differs from what this draws
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'ascii');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}
/** Encodes straight RGBA pixels as a PNG (8-bit, colour type 6, no interlace, filter 0 on every row). */
export function encodePng(size, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8);
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0;
    rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const hex = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
const WHITE = [255, 255, 255];

/** Rasterises layers (each `[colour, inside(x, y)]` in [-1, 1] coordinates, y down) with 4×4 supersampling. */
function draw(size, layers) {
  const px = Buffer.alloc(size * size * 4);
  const S = 4;
  for (let py = 0; py < size; py++) {
    for (let pxx = 0; pxx < size; pxx++) {
      let r = 0,
        g = 0,
        b = 0,
        a = 0;
      for (let sy = 0; sy < S; sy++) {
        for (let sx = 0; sx < S; sx++) {
          const x = ((pxx + (sx + 0.5) / S) / size) * 2 - 1;
          const y = ((py + (sy + 0.5) / S) / size) * 2 - 1;
          let colour = null;
          for (const [c, inside] of layers) if (inside(x, y)) colour = c;
          if (colour) {
            r += colour[0];
            g += colour[1];
            b += colour[2];
            a += 1;
          }
        }
      }
      const i = (py * size + pxx) * 4;
      if (a > 0) {
        px[i] = Math.round(r / a);
        px[i + 1] = Math.round(g / a);
        px[i + 2] = Math.round(b / a);
      }
      px[i + 3] = Math.round((a / (S * S)) * 255);
    }
  }
  return px;
}

const disc =
  (r, cx = 0, cy = 0) =>
  (x, y) =>
    (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
const ring = (outer, inner) => (x, y) => {
  const d = x * x + y * y;
  return d <= outer * outer && d >= inner * inner;
};
const rect = (x0, y0, x1, y1) => (x, y) => x >= x0 && x <= x1 && y >= y0 && y <= y1;
const any =
  (...fs) =>
  (x, y) =>
    fs.some((f) => f(x, y));

/** Tray states of shared/display-status.ts (TRAY_STATE_ORDER), each a distinct shape. */
export const TRAY_SHAPES = {
  // Orange disc with "!": someone must answer.
  'needs-answer': [
    [hex('#f97316'), disc(0.92)],
    [WHITE, any(rect(-0.14, -0.62, 0.14, 0.18), disc(0.15, 0, 0.45))],
  ],
  // Purple disc with clock hands: a runner stopped heartbeating.
  stale: [
    [hex('#9333ea'), disc(0.92)],
    [WHITE, any(rect(-0.11, -0.6, 0.11, 0.08), rect(-0.11, -0.08, 0.52, 0.08))],
  ],
  // Red disc with a bar: something failed.
  failed: [
    [hex('#dc2626'), disc(0.92)],
    [WHITE, rect(-0.55, -0.15, 0.55, 0.15)],
  ],
  // Plain blue disc: work is running, nothing needs you.
  running: [[hex('#2563eb'), disc(0.8)]],
  // Grey ring: nothing happening.
  idle: [[hex('#8b93a1'), ring(0.8, 0.5)]],
};

export function trayPng(state, size) {
  return encodePng(size, draw(size, TRAY_SHAPES[state]));
}

export function appIconPng(size = 512) {
  const roundedSquare = (x, y) => {
    const k = 0.78;
    const r = 0.2;
    const dx = Math.max(Math.abs(x) - k, 0);
    const dy = Math.max(Math.abs(y) - k, 0);
    return Math.abs(x) <= k + r && Math.abs(y) <= k + r && dx * dx + dy * dy <= r * r;
  };
  return encodePng(
    size,
    draw(size, [
      [hex('#111318'), roundedSquare],
      [hex('#2dd4bf'), ring(0.62, 0.44)],
      [hex('#f97316'), disc(0.2)],
    ]),
  );
}

function trayModule() {
  const lines = [
    '// Generated by build/generate-icons.mjs: do not edit. Tray icons (PNG, base64) per tray state,',
    '// at 1x (16 px) and 2x (32 px), carried in the main bundle so no asset path needs resolving in app.asar.',
    "import type { TrayState } from '../../shared/display-status';",
    '',
    'export const TRAY_ICON_PNGS: Record<TrayState, { x1: string; x2: string }> = {',
  ];
  for (const state of Object.keys(TRAY_SHAPES)) {
    lines.push(`  ${/^[a-z]+$/.test(state) ? state : `'${state}'`}: {`);
    lines.push(`    x1: '${trayPng(state, 16).toString('base64')}',`);
    lines.push(`    x2: '${trayPng(state, 32).toString('base64')}',`);
    lines.push('  },');
  }
  lines.push('};', '');
  return lines.join('\n');
}

export function outputs() {
  const files = {
    'build/icon.png': appIconPng(512),
    'main/electron/tray-icons.ts': Buffer.from(trayModule()),
  };
  for (const state of Object.keys(TRAY_SHAPES)) {
    files[`build/tray/${state}.png`] = trayPng(state, 16);
    files[`build/tray/${state}@2x.png`] = trayPng(state, 32);
  }
  return files;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const [rel, bytes] of Object.entries(outputs())) {
    const file = resolve(root, rel);
    if (check) {
      let current = null;
      try {
        current = readFileSync(file);
      } catch {
        /* missing counts as stale */
      }
      if (!current || !current.equals(bytes)) {
        console.error(`out of date: ${rel}`);
        stale++;
      }
    } else {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, bytes);
      console.log(`wrote ${rel} (${bytes.length} bytes)`);
    }
  }
  if (stale > 0) {
    console.error('Run `node build/generate-icons.mjs` to regenerate.');
    process.exit(1);
  }
}
