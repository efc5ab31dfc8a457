/** Where the store lives (docs/ARCHITECTURE.md#the-store-file): --store flag > RUNWARDEN_STORE > the platform's data folder. */
import os from 'node:os';
import path from 'node:path';

export interface StorePathOptions {
  flag?: string;
  env?: Record<string, string | undefined>;
  platform?: NodeJS.Platform;
  home?: string;
}

export function resolveStorePath(opts: StorePathOptions = {}): string {
  const env = opts.env ?? process.env;
  const platform = opts.platform ?? process.platform;
  const home = opts.home ?? os.homedir();
  const pathApi = platform === 'win32' ? path.win32 : path.posix;
  if (opts.flag !== undefined && opts.flag !== '') return pathApi.resolve(opts.flag);
  const fromEnv = env.RUNWARDEN_STORE;
  if (fromEnv !== undefined && fromEnv !== '') return pathApi.resolve(fromEnv);
  let dataDir: string;
  if (platform === 'darwin') {
    dataDir = pathApi.join(home, 'Library', 'Application Support');
  } else if (platform === 'win32') {
    dataDir =
      env.APPDATA !== undefined && env.APPDATA !== ''
        ? env.APPDATA
        : pathApi.join(home, 'AppData', 'Roaming');
  } else {
    const xdg = env.XDG_DATA_HOME;
    // XDG: a relative XDG_DATA_HOME is invalid and must be ignored.
    dataDir =
      xdg !== undefined && xdg !== '' && pathApi.isAbsolute(xdg)
        ? xdg
        : pathApi.join(home, '.local', 'share');
  }
  return pathApi.join(dataDir, 'runwarden', 'state.sqlite');
}
