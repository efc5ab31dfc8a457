/**
 * desktopExecArg(): the one quoting of an Exec argument, used by the autostart entry and the AppImage's link
 * handler. Read back the way the Desktop Entry Specification says a session reads it (string layer, then
 * quoting, then field codes), any path comes back as itself, as one argument.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { desktopExecArg } from '../../../main/electron/desktop-entry';
import { appImageDesktopEntry } from '../../../main/electron/appimage-scheme';
import { autostartEntry } from '../../../main/electron/xdg-autostart';
import { execArguments } from '../../helpers/desktop-entry';

describe('desktopExecArg()', () => {
  it('writes the Desktop Entry Specification’s example: one backslash of a path becomes four in the file', () => {
    expect(desktopExecArg('/a\\b')).toBe('"/a\\\\\\\\b"');
    expect(desktopExecArg('/a b/"q"/$x/`y`/100%.AppImage')).toBe(
      '"/a b/\\\\"q\\\\"/\\\\$x/\\\\`y\\\\`/100%%.AppImage"',
    );
  });

  it('any path without a line break comes back as itself, one argument, in both entries', () => {
    const pathChar = fc.constantFrom(...'ab /"\'`$\\%;&|*?#()<>~\t\u00e9\u{1F600}=-_.'.split(''));
    fc.assert(
      fc.property(fc.array(pathChar, { minLength: 1, maxLength: 30 }), (chars) => {
        const path = `/${chars.join('')}`;
        expect(execArguments(autostartEntry(path))).toEqual([path, '--hidden']);
        expect(execArguments(appImageDesktopEntry(path, 'runwarden'))).toEqual([path, '%U']);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a path with a line break (a key’s value is one line)', () => {
    expect(() => desktopExecArg('/a\nExec=evil')).toThrow(/line break/);
    expect(() => autostartEntry('/a\rb')).toThrow(/line break/);
  });
});
