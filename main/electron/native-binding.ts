/**
 * Which better-sqlite3 addon the app loads (STACK.md pitfall 3). Node (tests, CLI) and Electron need
 * different ABIs, so `npm start` builds an Electron-ABI copy into
 * `.cache/electron-native/<electron version>/better_sqlite3.node` and passes it in RUNWARDEN_NATIVE_BINDING;
 * the store then opens with better-sqlite3's `nativeBinding` option. A packaged app was rebuilt for
 * Electron by electron-builder, so it uses the default addon.
 */
import { join } from 'node:path';

export const NATIVE_BINDING_ENV = 'RUNWARDEN_NATIVE_BINDING';

/** Where scripts/start.js puts the Electron-ABI addon (kept in step with it by a test). */
export function electronNativeBindingPath(projectRoot: string, electronVersion: string): string {
  return join(projectRoot, '.cache', 'electron-native', electronVersion, 'better_sqlite3.node');
}

export type NativeBindingChoice =
  { kind: 'default' } | { kind: 'file'; path: string } | { kind: 'missing'; message: string };

export interface NativeBindingFacts {
  isPackaged: boolean;
  env: Record<string, string | undefined>;
  /** The project root in development (`app.getAppPath()`). */
  appPath: string;
  electronVersion: string;
  exists: (path: string) => boolean;
}

export function chooseNativeBinding(facts: NativeBindingFacts): NativeBindingChoice {
  if (facts.isPackaged) return { kind: 'default' };
  const fromEnv = facts.env[NATIVE_BINDING_ENV];
  const candidate =
    fromEnv !== undefined && fromEnv !== ''
      ? fromEnv
      : electronNativeBindingPath(facts.appPath, facts.electronVersion);
  if (facts.exists(candidate)) return { kind: 'file', path: candidate };
  return {
    kind: 'missing',
    message:
      `The better-sqlite3 addon built for Electron ${facts.electronVersion} was not found at ${candidate}. ` +
      'Start Runwarden with `npm start`, which builds it (the copy in node_modules is built for Node, not Electron).',
  };
}
