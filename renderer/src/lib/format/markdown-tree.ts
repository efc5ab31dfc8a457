/**
 * Markdown in a question's prompt (untrusted text) → a small tree of plain nodes that components
 * render as Svelte elements, never as HTML (docs/WINDOW.md#markdown). marked only tokenizes; raw HTML in
 * the source stays visible text, a link keeps its words and shows where it points but goes nowhere, and an
 * image is never fetched: its description and address are shown instead.
 */
import { Lexer, type Token, type Tokens } from 'marked';

export type MdInline =
  | { kind: 'text'; text: string }
  | { kind: 'strong' | 'em' | 'del'; children: MdInline[] }
  | { kind: 'code'; text: string }
  | { kind: 'link'; href: string; children: MdInline[] }
  | { kind: 'image'; alt: string; src: string }
  | { kind: 'br' };

export type MdBlock =
  | { kind: 'paragraph'; children: MdInline[] }
  | { kind: 'heading'; level: number; children: MdInline[] }
  | { kind: 'code'; text: string }
  | { kind: 'quote'; blocks: MdBlock[] }
  | { kind: 'list'; ordered: boolean; start: number; items: MdBlock[][] }
  | { kind: 'table'; header: MdInline[][]; rows: MdInline[][][] }
  | { kind: 'hr' };

/** Past this many characters the rest of a prompt is shown as it is, untokenized. */
export const MARKDOWN_MAX_CHARS = 20_000;

function inline(tokens: readonly Token[] | undefined): MdInline[] {
  const out: MdInline[] = [];
  for (const token of tokens ?? []) {
    const t = token as Tokens.Generic;
    switch (token.type) {
      case 'strong':
      case 'em':
      case 'del':
        out.push({ kind: token.type, children: inline(t.tokens) });
        break;
      case 'codespan':
        out.push({ kind: 'code', text: String(t.text ?? '') });
        break;
      case 'link':
        out.push({ kind: 'link', href: String(t.href ?? ''), children: inline(t.tokens) });
        break;
      case 'image':
        out.push({ kind: 'image', alt: String(t.text ?? ''), src: String(t.href ?? '') });
        break;
      case 'br':
        out.push({ kind: 'br' });
        break;
      case 'text':
        // A text token inside a list item may carry its own inline tokens (emphasis in a tight list).
        if (Array.isArray(t.tokens) && t.tokens.length > 0) out.push(...inline(t.tokens));
        else out.push({ kind: 'text', text: String(t.text ?? '') });
        break;
      case 'escape':
        out.push({ kind: 'text', text: String(t.text ?? '') });
        break;
      default:
        // Raw HTML and anything unknown: the characters the person wrote, as text.
        out.push({ kind: 'text', text: String(t.raw ?? '') });
    }
  }
  return out;
}

function blocks(tokens: readonly Token[]): MdBlock[] {
  const out: MdBlock[] = [];
  for (const token of tokens) {
    const t = token as Tokens.Generic;
    switch (token.type) {
      case 'space':
      case 'def':
        break;
      case 'paragraph':
        out.push({ kind: 'paragraph', children: inline(t.tokens) });
        break;
      case 'text':
        out.push({ kind: 'paragraph', children: inline(Array.isArray(t.tokens) ? t.tokens : [token]) });
        break;
      case 'heading':
        out.push({ kind: 'heading', level: Number(t.depth ?? 1), children: inline(t.tokens) });
        break;
      case 'code':
        out.push({ kind: 'code', text: String(t.text ?? '') });
        break;
      case 'blockquote':
        out.push({ kind: 'quote', blocks: blocks(t.tokens ?? []) });
        break;
      case 'list': {
        const list = token as Tokens.List;
        out.push({
          kind: 'list',
          ordered: list.ordered,
          start: typeof list.start === 'number' ? list.start : 1,
          items: list.items.map((item) => blocks(item.tokens)),
        });
        break;
      }
      case 'table': {
        const table = token as Tokens.Table;
        out.push({
          kind: 'table',
          header: table.header.map((cell) => inline(cell.tokens)),
          rows: table.rows.map((row) => row.map((cell) => inline(cell.tokens))),
        });
        break;
      }
      case 'hr':
        out.push({ kind: 'hr' });
        break;
      default:
        out.push({ kind: 'paragraph', children: [{ kind: 'text', text: String(t.raw ?? '') }] });
    }
  }
  return out;
}

/** The prompt as blocks; never throws (a tokenizer failure shows the source as one paragraph). */
export function markdownTree(source: string): MdBlock[] {
  const head = source.slice(0, MARKDOWN_MAX_CHARS);
  const rest = source.slice(MARKDOWN_MAX_CHARS);
  let tree: MdBlock[];
  try {
    tree = blocks(Lexer.lex(head, { gfm: true, breaks: true }));
  } catch {
    tree = [{ kind: 'paragraph', children: [{ kind: 'text', text: head }] }];
  }
  if (rest !== '') tree.push({ kind: 'paragraph', children: [{ kind: 'text', text: rest }] });
  return tree;
}
