// oxlint-disable-next-line import/no-unassigned-import -- installs jsdom stubs before the components load
import '../dom-setup';
import { render } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import MarkdownText from '../../../renderer/src/lib/components/MarkdownText.svelte';
import { markdownTree } from '../../../renderer/src/lib/format/markdown-tree';

function shown(source: string): HTMLElement {
  return render(MarkdownText, { props: { blocks: markdownTree(source) } }).container;
}

describe('markdown text', () => {
  it('renders a prompt with raw HTML as text: no element from the prompt reaches the page', () => {
    const container = shown('Deploy <img src=x onerror="alert(1)"> now?\n\n<script>alert(2)</script>');
    expect(container.querySelector('img, script')).toBeNull();
    expect(container.textContent).toContain('<img src=x onerror="alert(1)">');
  });

  it('nests lists and quotes through itself, and keeps an ordered list’s start', () => {
    const container = shown('> quoted\n> - inside\n\n3. three\n4. four\n   - nested');
    expect(container.querySelector('blockquote ul li')?.textContent?.trim()).toBe('inside');
    const ordered = container.querySelector('ol');
    expect(ordered?.getAttribute('start')).toBe('3');
    expect(ordered?.querySelectorAll(':scope > li')).toHaveLength(2);
    expect(ordered?.querySelector('li ul li')?.textContent?.trim()).toBe('nested');
  });

  it('shows headings as styled paragraphs, never a page heading, capped at level 3', () => {
    const container = shown('# One\n\n##### Five');
    expect(container.querySelector('h1, h2, h3, h4, h5, h6')).toBeNull();
    const levels = [...container.querySelectorAll('.md-heading')].map((p) => p.className);
    expect(levels).toEqual([expect.stringContaining('md-h1'), expect.stringContaining('md-h3')]);
  });

  it('lays out a table with its header and rows, and code as code', () => {
    const container = shown('| a | b |\n| - | - |\n| 1 | 2 |\n\n```\nx < y\n```');
    expect([...container.querySelectorAll('th')].map((th) => th.textContent?.trim())).toEqual(['a', 'b']);
    expect([...container.querySelectorAll('tbody td')].map((td) => td.textContent?.trim())).toEqual([
      '1',
      '2',
    ]);
    expect(container.querySelector('pre code')?.textContent).toBe('x < y');
  });
});
