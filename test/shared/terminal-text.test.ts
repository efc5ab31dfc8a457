import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { neutraliseLine, showInvisible } from '../../shared/terminal-text';

const ANY_CONTROL =
  // oxlint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;
// oxlint-disable-next-line no-control-regex
const SGR_ONLY = /\u001b\[[0-9;:]*m/g;

describe('neutraliseLine', () => {
  it.each([
    ['colour', '\u001b[1;31mred\u001b[0m', 'red', '\u001b[1;31mred\u001b[0m'],
    ['clear screen and cursor moves', '\u001b[2J\u001b[H\u001b[10;5Htext', 'text', 'text'],
    ['OSC title (BEL)', '\u001b]0;owned\u0007after', 'after', 'after'],
    ['OSC 8 link (ST)', '\u001b]8;;https://x\u001b\\link\u001b]8;;\u001b\\', 'link', 'link'],
    ['unterminated OSC eats the rest', 'a\u001b]52;c;Zm9v', 'a', 'a'],
    ['DCS', 'x\u001bP+q544e\u001b\\y', 'xy', 'xy'],
    ['8-bit CSI', 'x\u009b2Jy', 'xy', 'xy'],
    ['lone ESC at the end', 'end\u001b', 'end', 'end'],
    ['BEL, backspace, NUL', 'a\u0007b\u0008c\u0000d', 'a b c d', 'a b c d'],
    ['carriage returns keep the last state', '10%\r50%\r100%', '100%', '100%'],
    ['CRLF', 'line\r', 'line', 'line'],
    ['bidi override, made visible', 'abc\u202edef', 'abc<U+202E>def', 'abc<U+202E>def'],
    ['zero-width space and isolate', 'a\u200bb\u2066c', 'a<U+200B>b<U+2066>c', 'a<U+200B>b<U+2066>c'],
    ['line separator', 'a\u2028b', 'a b', 'a b'],
    ['tab and HTML stay as text', '\t<b>x</b>', '\t<b>x</b>', '\t<b>x</b>'],
  ])('%s', (_name, input, plain, coloured) => {
    expect(neutraliseLine(input)).toBe(plain);
    expect(neutraliseLine(input, { keepColour: true })).toBe(coloured);
  });

  it('leaves no control character in any input; with colour kept, nothing but SGR', () => {
    const pieces = fc.oneof(
      fc.string(),
      fc.constantFrom(
        '\u001b',
        '\u001b[',
        '\u001b]',
        '\u0007',
        '\u009b',
        '\u009d',
        '\u001b\\',
        'm',
        ';',
        '31',
        '\r',
        '\u202e',
        '\u200b',
        '\u2028',
        '\ufeff',
      ),
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 30 }), (parts) => {
        const input = parts.join('');
        expect(neutraliseLine(input)).not.toMatch(ANY_CONTROL);
        expect(neutraliseLine(input, { keepColour: true }).replace(SGR_ONLY, '')).not.toMatch(ANY_CONTROL);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('showInvisible', () => {
  it('shows bidi controls and invisible characters as <U+XXXX>, and leaves everything else as it is', () => {
    expect(showInvisible('proj-\u202egpj.exe')).toBe('proj-<U+202E>gpj.exe');
    expect(showInvisible('a\u200bb\ufeffc\u2066d\u00ad')).toBe('a<U+200B>b<U+FEFF>c<U+2066>d<U+00AD>');
    expect(showInvisible('Déploiement <b>prod</b>\tok')).toBe('Déploiement <b>prod</b>\tok');
  });
});
