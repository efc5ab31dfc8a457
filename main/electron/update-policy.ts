/**
 * Updates (docs/DESKTOP-CHECKLIST.md#updates): which builds update themselves, which are only told of a new
 * version, and when a downloaded update may restart the app. Plain Node: electron-updater's updater is
 * injected (`Updater` is the part of its `AppUpdater` used here), so every decision is tested with the real
 * updater against a feed served by the test, and with fakes, without Electron.
 */

import type { UpdatePlan } from '../../shared/views';

export type { UpdateKind, UpdatePlan } from '../../shared/views';

export interface UpdateBuild {
  /** False under `npm start`: development builds never update. */
  packaged: boolean;
  platform: NodeJS.Platform;
  /** The release feed electron-builder wrote into the app (`resources/app-update.yml`); null without one. */
  feed: UpdateFeed | null;
  /** electron-builder's `resources/package-type` (`deb`, …); null for the AppImage and the other targets. */
  packageType: string | null;
  /** `$APPIMAGE`: the AppImage file this app runs from. */
  appImage: string | null;
  /** macOS: signed with a Developer ID (Squirrel.Mac replaces only a signed app with a signed update). */
  macSigned: boolean;
}

/** The provider part of `app-update.yml` that says where a person downloads a release. */
export interface UpdateFeed {
  provider: string;
  owner?: string;
  repo?: string;
  url?: string;
}

/** Which builds install updates, which only say a new version is out, and why. */
export function updatePlan(build: UpdateBuild): UpdatePlan {
  if (!build.packaged) return { kind: 'off', reason: 'Development builds never update.' };
  if (build.feed === null) return { kind: 'off', reason: 'This build names no release feed.' };
  if (build.platform === 'win32') return { kind: 'install', reason: null };
  if (build.platform === 'darwin') {
    return build.macSigned
      ? { kind: 'install', reason: null }
      : { kind: 'notify', reason: 'An unsigned build cannot replace itself: download the new version.' };
  }
  if (build.platform === 'linux') {
    if (build.packageType === 'deb') {
      return { kind: 'notify', reason: 'The deb is updated by installing the new package: download it.' };
    }
    if (build.appImage !== null) return { kind: 'install', reason: null };
    return {
      kind: 'notify',
      reason: 'This copy was not installed from a package: download the new version.',
    };
  }
  return { kind: 'off', reason: 'Updates are not offered on this system.' };
}

/** Where a person downloads `version`: its GitHub release page, or the generic feed's folder. */
export function releasePage(feed: UpdateFeed | null, version: string): string | null {
  if (feed === null) return null;
  if (feed.provider === 'github' && feed.owner !== undefined && feed.repo !== undefined) {
    const part = (text: string): string => encodeURIComponent(text);
    return `https://github.com/${part(feed.owner)}/${part(feed.repo)}/releases/tag/v${part(version)}`;
  }
  if (feed.provider === 'generic' && feed.url !== undefined && feed.url.startsWith('https://'))
    return feed.url;
  return null;
}

/** `1.2.3` (and a pre-release after `-`) compared as semantic versions; null when either is not one. */
export function compareVersions(a: string, b: string): number | null {
  const parse = (text: string): { core: number[]; pre: string | null } | null => {
    const match = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(text);
    if (match === null) return null;
    return { core: [Number(match[1]), Number(match[2]), Number(match[3])], pre: match[4] ?? null };
  };
  const left = parse(a);
  const right = parse(b);
  if (left === null || right === null) return null;
  for (let i = 0; i < 3; i++) {
    const diff = (left.core[i] ?? 0) - (right.core[i] ?? 0);
    if (diff !== 0) return Math.sign(diff);
  }
  if (left.pre === right.pre) return 0;
  if (left.pre === null) return 1;
  if (right.pre === null) return -1;
  return left.pre < right.pre ? -1 : 1;
}

/** Release notes as plain text: a GitHub release's HTML loses its tags (never rendered as markup). */
export function plainReleaseNotes(notes: unknown): string {
  const text = (value: unknown): string =>
    typeof value === 'string'
      ? value
          .replace(/<br\s*\/?>|<\/(p|li|h\d)>/gi, '\n')
          .replace(/<[^>]*>/g, '')
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&quot;/g, '"')
          .replace(/&#39;/g, "'")
          .replace(/&amp;/g, '&')
      : '';
  const joined = Array.isArray(notes)
    ? notes
        .map((entry: { version?: unknown; note?: unknown }) => `${text(entry.version)}\n${text(entry.note)}`)
        .join('\n\n')
    : text(notes);
  return joined
    .replace(/\n{3,}/g, '\n\n')
    .trim()
    .slice(0, 20_000);
}

/** A downloaded update restarts the app only while no question is open and the person has been idle. */
export const IDLE_BEFORE_RESTART_S = 10 * 60;

export type RestartVerdict = { restart: true } | { restart: false; reason: string };

export function restartVerdict(input: {
  downloaded: boolean;
  openQuestions: number;
  /** Seconds since the person last used the machine (powerMonitor.getSystemIdleTime); null for "now". */
  idleSeconds: number | null;
}): RestartVerdict {
  if (!input.downloaded) return { restart: false, reason: 'No update is downloaded.' };
  if (input.openQuestions > 0) {
    return { restart: false, reason: 'A question is open: Runwarden restarts once it is answered.' };
  }
  if (input.idleSeconds !== null && input.idleSeconds < IDLE_BEFORE_RESTART_S) {
    return { restart: false, reason: 'Waiting until the machine is idle.' };
  }
  return { restart: true };
}

/**
 * Whether the running macOS app is signed with a Developer ID (`codesign -dv` names the authority; an ad-hoc
 * signature says `Signature=adhoc`). `execPath` is `Runwarden.app/Contents/MacOS/Runwarden`.
 */
export function macDeveloperIdSigned(
  execPath: string,
  run: (file: string, args: string[]) => string = codesignDetails,
): boolean {
  const bundle = execPath.replace(/\/Contents\/MacOS\/[^/]+$/, '');
  if (bundle === execPath) return false;
  return /^Authority=Developer ID Application: /m.test(run('codesign', ['-dv', '--verbose=2', bundle]));
}

function codesignDetails(file: string, args: string[]): string {
  // codesign writes its details on stderr.
  const result = process.getBuiltinModule('node:child_process').spawnSync(file, args, {
    encoding: 'utf8',
    timeout: 10_000,
  });
  return `${result.stdout ?? ''}${result.stderr ?? ''}`;
}

/** How often the automatic check runs (when on). */
export const CHECK_EVERY_MS = 6 * 60 * 60 * 1000;

/**
 * What a person is told when a check finds a newer version, once per version: a download ready to install on
 * the next idle restart, or (deb, unsigned Mac) where to get it. Null when nothing new is to be said.
 */
export function updateNotice(
  told: ReadonlySet<string>,
  state: { phase: string; latestVersion: string | null; downloadUrl: string | null },
): { title: string; body: string } | null {
  const version = state.latestVersion;
  if (version === null || (state.phase !== 'ready' && state.phase !== 'available')) return null;
  const key = `${state.phase}:${version}`;
  if (told.has(key)) return null;
  if (state.phase === 'ready') {
    return {
      title: `Runwarden ${version} is ready`,
      body: 'It installs when Runwarden restarts: after you have been away a while with no question open.',
    };
  }
  return {
    title: `Runwarden ${version} is out`,
    body:
      state.downloadUrl === null
        ? 'Download it from where you got Runwarden.'
        : `Download it: ${state.downloadUrl}`,
  };
}
