import { describe, expect, it } from 'vitest';

/** Every renderer source, as raw text (Vite's glob keeps this test free of Node APIs, like the renderer). */
const files = import.meta.glob<string>(
  ['../../renderer/**/*.svelte', '../../renderer/**/*.ts', '../../renderer/*.html'],
  {
    query: '?raw',
    import: 'default',
    eager: true,
  },
);
const entries = Object.entries(files);

describe('untrusted text stays text (docs/WINDOW.md#markdown)', () => {
  it('finds the renderer sources', () => {
    expect(entries.some(([path]) => path.endsWith('App.svelte'))).toBe(true);
    expect(entries.length).toBeGreaterThan(20);
  });

  it('no {@html anywhere in the renderer', () => {
    const offenders = entries.filter(([, text]) => text.includes('{@html')).map(([path]) => path);
    expect(offenders).toEqual([]);
  });

  it('no innerHTML / outerHTML / insertAdjacentHTML / eval in the renderer', () => {
    const pattern = /\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|\beval\(|new Function\(/;
    const offenders = entries.filter(([, text]) => pattern.test(text)).map(([path]) => path);
    expect(offenders).toEqual([]);
  });

  it('no inline event handler attributes, inline scripts or style attributes in index.html (CSP)', () => {
    const html = entries.find(([path]) => path.endsWith('renderer/index.html'))?.[1] ?? '';
    expect(html).toContain('<div id="app">');
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
    expect(html).not.toMatch(/\sstyle\s*=/i);
  });
});
