/**
 * Updates with electron-updater's own AppImage updater (its real provider, HTTP client, YAML parsing and
 * SHA-512 check; only Electron's app and net are replaced by Node's) against a release feed this test serves on
 * 127.0.0.1: a newer version is downloaded, an older one or a malformed feed is refused, a download that fails
 * its checksum is refused, a deb is only told. The decisions around it (which builds update, when a restart is
 * allowed) with fakes. docs/DESKTOP-CHECKLIST.md#updates.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeHttpExecutor } from 'builder-util';
import { configureRequestOptions, configureRequestUrl, type DownloadOptions } from 'builder-util-runtime';
import { AppImageUpdater } from 'electron-updater';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UpdateController, type Updater } from '../../../main/electron/update-controller';
import {
  compareVersions,
  macDeveloperIdSigned,
  plainReleaseNotes,
  releasePage,
  restartVerdict,
  updateNotice,
  updatePlan,
  type UpdateBuild,
} from '../../../main/electron/update-policy';

const PAYLOAD = Buffer.from('#!/bin/sh\necho the new Runwarden\n');
const sha512 = (bytes: Buffer): string => createHash('sha512').update(bytes).digest('base64');

let server: Server;
let port = 0;
let routes = new Map<string, { status: number; body: Buffer | string }>();
const requests: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.push(path);
    // The channel file's name depends on the architecture (latest-linux.yml, latest-linux-arm64.yml).
    const route = routes.get(/^\/latest[\w-]*\.yml$/.test(path) ? '/latest.yml' : path);
    res.writeHead(route?.status ?? 404);
    res.end(route?.body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  port = typeof address === 'object' && address !== null ? address.port : 0;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function feed(version: string, opts: { sha?: string; notes?: string } = {}): string {
  return [
    `version: ${version}`,
    'files:',
    '  - url: Runwarden-x86_64.AppImage',
    `    sha512: ${opts.sha ?? sha512(PAYLOAD)}`,
    `    size: ${PAYLOAD.length}`,
    'path: Runwarden-x86_64.AppImage',
    `sha512: ${opts.sha ?? sha512(PAYLOAD)}`,
    "releaseDate: '2026-12-01T10:00:00.000Z'",
    `releaseNotes: '${opts.notes ?? '<p>Fixes the hook &amp; the tray</p>'}'`,
    '',
  ].join('\n');
}

let dir: string;
let savedAppImage: string | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'runwarden-updates-'));
  routes = new Map([['/Runwarden-x86_64.AppImage', { status: 200, body: PAYLOAD }]]);
  requests.length = 0;
  savedAppImage = process.env.APPIMAGE;
  process.env.APPIMAGE = join(dir, 'Runwarden-x86_64.AppImage');
  writeFileSync(process.env.APPIMAGE, 'the old AppImage');
});
afterEach(() => {
  if (savedAppImage === undefined) delete process.env.APPIMAGE;
  else process.env.APPIMAGE = savedAppImage;
  rmSync(dir, { recursive: true, force: true });
});

/**
 * electron-updater's HTTP client with Node's `http` in place of Electron's `net`: its `download` is
 * ElectronHttpExecutor's own (builder-util-runtime's `doDownload`, which checks the SHA-512).
 */
class NodeDownloadExecutor extends NodeHttpExecutor {
  download(url: URL, destination: string, options: DownloadOptions): Promise<string> {
    return options.cancellationToken.createPromise((resolve, reject, onCancel) => {
      const requestOptions = { headers: options.headers ?? undefined, redirect: 'manual' };
      configureRequestUrl(url, requestOptions);
      configureRequestOptions(requestOptions);
      this.doDownload(
        requestOptions,
        {
          destination,
          options,
          onCancel,
          callback: (error) => (error === null || error === undefined ? resolve(destination) : reject(error)),
          responseHandler: null,
        },
        0,
      );
    });
  }
}

/** electron-updater's AppImage updater as the app makes it, with Node's HTTP instead of Electron's net. */
function realUpdater(): AppImageUpdater {
  const url = `http://127.0.0.1:${port}/`;
  const configPath = join(dir, 'app-update.yml');
  writeFileSync(configPath, `provider: generic\nurl: ${url}\nupdaterCacheDirName: runwarden-updater\n`);
  const app = {
    version: '0.1.0',
    name: 'Runwarden',
    isPackaged: true,
    appUpdateConfigPath: configPath,
    userDataPath: join(dir, 'user'),
    baseCachePath: join(dir, 'cache'),
    whenReady: () => Promise.resolve(),
    relaunch: () => {},
    quit: () => {},
    onQuit: () => {},
  };
  const updater = new AppImageUpdater(null, app);
  // The provider takes the HTTP client when the feed is set: first the client, then the feed.
  // electron-updater keeps it in a field its types leave out (set by the constructor when an app is given).
  Object.assign(updater, { httpExecutor: new NodeDownloadExecutor() });
  updater.setFeedURL({ provider: 'generic', url });
  updater.logger = null;
  updater.disableDifferentialDownload = true;
  return updater;
}

const INSTALL = { kind: 'install', reason: null } as const;
const FEED = { provider: 'github', owner: 'someone', repo: 'runwarden' };

function controller(
  updater: Updater | null,
  plan: { kind: 'install' | 'notify' | 'off'; reason: string | null } = INSTALL,
) {
  return new UpdateController({ updater, plan, feed: FEED, currentVersion: '0.1.0', now: () => 1_000 });
}

function downloaded(): string[] {
  const pending = join(dir, 'cache', 'runwarden-updater', 'pending');
  return existsSync(pending) ? readdirSync(pending) : [];
}

describe('a release feed on 127.0.0.1, through electron-updater', () => {
  it('offers a newer version, downloads it and checks its SHA-512; the notes come as plain text', async () => {
    routes.set('/latest.yml', { status: 200, body: feed('0.1.1') });
    const state = await controller(realUpdater()).check();
    expect(state).toMatchObject({
      phase: 'ready',
      currentVersion: '0.1.0',
      latestVersion: '0.1.1',
      releaseNotes: 'Fixes the hook & the tray',
      checkedAt: 1_000,
    });
    expect(requests).toContain('/Runwarden-x86_64.AppImage');
    expect(downloaded()).toContain('Runwarden-x86_64.AppImage');
  });

  it('refuses an older version and the same version: up to date, nothing downloaded', async () => {
    for (const version of ['0.0.9', '0.1.0']) {
      routes.set('/latest.yml', { status: 200, body: feed(version) });
      expect((await controller(realUpdater()).check()).phase).toBe('up-to-date');
    }
    expect(requests).not.toContain('/Runwarden-x86_64.AppImage');
    expect(downloaded()).toEqual([]);
  });

  it('refuses a malformed feed with a sentence, nothing downloaded', async () => {
    for (const body of ['version: [0.1.1\nfiles: {', 'version: 0.1.1\n', 'version: banana\nfiles: []\n']) {
      routes.set('/latest.yml', { status: 200, body });
      const state = await controller(realUpdater()).check();
      expect(state.phase).toBe('failed');
      expect(state.message).toMatch(/^The (update check failed|release feed names no valid version)/);
    }
    routes.delete('/latest.yml');
    expect((await controller(realUpdater()).check()).phase).toBe('failed');
    expect(requests).not.toContain('/Runwarden-x86_64.AppImage');
    expect(downloaded()).toEqual([]);
  });

  it('refuses a download whose SHA-512 is not the feed’s: nothing left to install', async () => {
    routes.set('/latest.yml', {
      status: 200,
      body: feed('0.1.1', { sha: sha512(Buffer.from('other bytes')) }),
    });
    const state = await controller(realUpdater()).check();
    expect(state.phase).toBe('failed');
    expect(state.message).toBe('The download did not match the release’s checksum; nothing was installed.');
    expect(requests).toContain('/Runwarden-x86_64.AppImage');
    expect(downloaded()).toEqual([]);
  });

  it('a deb is told of the new version and where to download it, and downloads nothing', async () => {
    routes.set('/latest.yml', { status: 200, body: feed('0.1.1') });
    const plan = updatePlan({ ...BUILD, packageType: 'deb' });
    const state = await controller(realUpdater(), plan).check();
    expect(state).toMatchObject({
      phase: 'available',
      latestVersion: '0.1.1',
      downloadUrl: 'https://github.com/someone/runwarden/releases/tag/v0.1.1',
      message: 'The deb is updated by installing the new package: download it.',
    });
    expect(requests).not.toContain('/Runwarden-x86_64.AppImage');
  });
});

const BUILD: UpdateBuild = {
  packaged: true,
  platform: 'linux',
  feed: FEED,
  packageType: null,
  appImage: '/home/me/Apps/Runwarden-x86_64.AppImage',
  macSigned: false,
};

describe('which builds update', () => {
  it('per platform and package', () => {
    expect(updatePlan({ ...BUILD, packaged: false })).toEqual({
      kind: 'off',
      reason: 'Development builds never update.',
    });
    expect(updatePlan({ ...BUILD, feed: null }).kind).toBe('off');
    expect(updatePlan(BUILD).kind).toBe('install');
    expect(updatePlan({ ...BUILD, packageType: 'deb' }).kind).toBe('notify');
    expect(updatePlan({ ...BUILD, appImage: null }).kind).toBe('notify');
    expect(updatePlan({ ...BUILD, platform: 'win32', appImage: null }).kind).toBe('install');
    expect(updatePlan({ ...BUILD, platform: 'darwin', appImage: null, macSigned: true }).kind).toBe(
      'install',
    );
    expect(updatePlan({ ...BUILD, platform: 'darwin', appImage: null }).kind).toBe('notify');
  });

  it('a development build never asks the feed', async () => {
    routes.set('/latest.yml', { status: 200, body: feed('0.1.1') });
    const state = await controller(realUpdater(), updatePlan({ ...BUILD, packaged: false })).check();
    expect(state.phase).toBe('off');
    expect(requests).toEqual([]);
  });

  it('a Mac build is signed for updates only with a Developer ID', () => {
    const exe = '/Applications/Runwarden.app/Contents/MacOS/Runwarden';
    const asked: string[][] = [];
    const codesign = (output: string) => (file: string, args: string[]) => {
      asked.push([file, ...args]);
      return output;
    };
    expect(
      macDeveloperIdSigned(
        exe,
        codesign('Authority=Developer ID Application: Someone (ABCDE12345)\nAuthority=Apple Root CA\n'),
      ),
    ).toBe(true);
    expect(asked).toEqual([['codesign', '-dv', '--verbose=2', '/Applications/Runwarden.app']]);
    expect(macDeveloperIdSigned(exe, codesign('Signature=adhoc\n'))).toBe(false);
    expect(macDeveloperIdSigned('/usr/bin/node', codesign('Authority=Developer ID Application: x'))).toBe(
      false,
    );
  });

  it('release pages and versions', () => {
    expect(releasePage({ provider: 'generic', url: 'https://example.org/rw/' }, '1.0.0')).toBe(
      'https://example.org/rw/',
    );
    expect(releasePage({ provider: 'generic', url: 'http://insecure/' }, '1.0.0')).toBeNull();
    expect(compareVersions('0.1.10', '0.1.9')).toBe(1);
    expect(compareVersions('0.2.0-beta.1', '0.2.0')).toBe(-1);
    expect(compareVersions('0.1', '0.1.0')).toBeNull();
    expect(plainReleaseNotes([{ version: '0.1.1', note: '<b>x</b> &lt;y&gt;' }])).toBe('0.1.1\nx <y>');
  });
});

describe('what a person is told', () => {
  it('once per version: ready to install, or where to download it', () => {
    const told = new Set<string>();
    expect(updateNotice(told, { phase: 'up-to-date', latestVersion: null, downloadUrl: null })).toBeNull();
    expect(updateNotice(told, { phase: 'ready', latestVersion: '0.1.1', downloadUrl: null })).toEqual({
      title: 'Runwarden 0.1.1 is ready',
      body: 'It installs when Runwarden restarts: after you have been away a while with no question open.',
    });
    told.add('ready:0.1.1');
    expect(updateNotice(told, { phase: 'ready', latestVersion: '0.1.1', downloadUrl: null })).toBeNull();
    const url = 'https://github.com/someone/runwarden/releases/tag/v0.1.2';
    expect(updateNotice(told, { phase: 'available', latestVersion: '0.1.2', downloadUrl: url })?.body).toBe(
      `Download it: ${url}`,
    );
  });
});

describe('restarting into a downloaded update', () => {
  function fakeUpdater(version: string) {
    const calls: string[] = [];
    const updater: Updater = {
      autoDownload: true,
      autoInstallOnAppQuit: false,
      allowDowngrade: true,
      checkForUpdates: () => Promise.resolve({ isUpdateAvailable: true, updateInfo: { version } }),
      downloadUpdate: () => {
        calls.push('download');
        return Promise.resolve([]);
      },
      quitAndInstall: (silent, runAfter) => calls.push(`install silent=${silent} runAfter=${runAfter}`),
    };
    return { updater, calls };
  }

  it('never while a question is open; when idle long enough; at once when the person asks', async () => {
    const { updater, calls } = fakeUpdater('0.1.1');
    const updates = controller(updater);
    // The controller takes over the updater's own habits: no download before it accepts, no downgrade.
    expect([updater.autoDownload, updater.allowDowngrade, updater.autoInstallOnAppQuit]).toEqual([
      false,
      false,
      true,
    ]);
    expect(updates.restart({ openQuestions: 0, idleSeconds: null })).toEqual({
      restart: false,
      reason: 'No update is downloaded.',
    });
    expect((await updates.check()).phase).toBe('ready');
    expect(updates.restart({ openQuestions: 1, idleSeconds: null }).restart).toBe(false);
    expect(updates.current().message).toBe('A question is open: Runwarden restarts once it is answered.');
    expect(updates.restart({ openQuestions: 0, idleSeconds: 60 }).restart).toBe(false);
    expect(calls).toEqual(['download']);
    expect(updates.restart({ openQuestions: 0, idleSeconds: 3_600 })).toEqual({ restart: true });
    expect(calls).toEqual(['download', 'install silent=true runAfter=true']);
  });

  it('a feed that calls an older version "available" is still refused', async () => {
    const { updater, calls } = fakeUpdater('0.0.1');
    expect((await controller(updater).check()).phase).toBe('up-to-date');
    expect(calls).toEqual([]);
    expect(restartVerdict({ downloaded: true, openQuestions: 0, idleSeconds: null })).toEqual({
      restart: true,
    });
  });
});
