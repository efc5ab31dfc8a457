/**
 * `runwarden://` links for the AppImage. A deb installs its desktop entry (with
 * `MimeType=x-scheme-handler/runwarden;`) into /usr/share/applications, so the desktop knows who handles the
 * scheme. An AppImage is a single file that installs nothing: the entry inside it is never seen, and
 * `app.setAsDefaultProtocolClient` on Linux only points xdg-mime at a desktop entry that must already exist.
 * So the running AppImage writes its own small entry into the user's applications folder, naming the
 * AppImage file it was started from (`$APPIMAGE`), and makes it the scheme's default with xdg-mime.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { desktopExecArg } from './desktop-entry';
import type { RunCommand } from './run-command';

export const APPIMAGE_DESKTOP_FILE = 'runwarden-appimage.desktop';

export function appImageDesktopEntry(appImagePath: string, scheme: string): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Runwarden',
    'Comment=Opens runwarden:// links in the Runwarden AppImage',
    `Exec=${desktopExecArg(appImagePath)} %U`,
    'Terminal=false',
    'NoDisplay=true',
    `MimeType=x-scheme-handler/${scheme};`,
    '',
  ].join('\n');
}

/** Registers the scheme for this AppImage; returns what it did (for the log), never throws. */
export async function registerAppImageScheme(options: {
  env: NodeJS.ProcessEnv;
  home: string;
  scheme: string;
  run: RunCommand;
}): Promise<'not-an-appimage' | 'registered' | { failed: string }> {
  const appImage = options.env.APPIMAGE;
  if (appImage === undefined || appImage === '') return 'not-an-appimage';
  const dataHome =
    options.env.XDG_DATA_HOME !== undefined && options.env.XDG_DATA_HOME !== ''
      ? options.env.XDG_DATA_HOME
      : join(options.home, '.local', 'share');
  const folder = join(dataHome, 'applications');
  const file = join(folder, APPIMAGE_DESKTOP_FILE);
  try {
    const entry = appImageDesktopEntry(appImage, options.scheme);
    let current: string | null = null;
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      // Not written yet.
    }
    if (current !== entry) {
      mkdirSync(folder, { recursive: true });
      writeFileSync(file, entry, { mode: 0o644 });
    }
    await options.run(
      'xdg-mime',
      ['default', APPIMAGE_DESKTOP_FILE, `x-scheme-handler/${options.scheme}`],
      options.env,
    );
    return 'registered';
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) };
  }
}
