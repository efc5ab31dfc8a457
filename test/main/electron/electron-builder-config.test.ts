/**
 * electron-builder.yml validated offline (packaging itself needs downloads): loaded with electron-builder's
 * own loader, checked against app-builder-lib's scheme.json with ajv (draft-07) and with electron-builder's
 * own validator, then the settings that matter for security and for the native addon asserted.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, type Stats } from 'node:fs';
import { join, relative } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import { APP_ID, PRODUCT_NAME } from '../../../main/electron/app-identity';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const require = createRequire(import.meta.url);

interface BuilderConfig {
  appId?: string;
  productName?: string;
  files?: Array<string | { filter?: string[] }>;
  asar?: boolean;
  asarUnpack?: string[];
  npmRebuild?: boolean;
  nodeGypRebuild?: boolean;
  buildDependenciesFromSource?: boolean;
  protocols?: Array<{ name: string; schemes: string[] }>;
  electronFuses?: Record<string, boolean>;
  linux?: { target?: string[]; icon?: string; files?: string[]; maintainer?: string };
  mac?: {
    target?: string[];
    entitlements?: string;
    hardenedRuntime?: boolean;
    files?: string[];
    extendInfo?: Record<string, unknown>;
  };
  win?: { target?: string[]; files?: string[] };
  [key: string]: unknown;
}

const builderConfig = require('app-builder-lib/out/util/config/config.js') as {
  getConfig(projectDir: string, configPath: string | null, configFromOptions: null): Promise<BuilderConfig>;
  validateConfiguration(config: BuilderConfig, debugLogger: unknown): Promise<void>;
};
const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
type FileFilter = (file: string, stat: Stats) => boolean;
const fileMatcher = require('app-builder-lib/out/fileMatcher.js') as {
  getNodeModuleFileMatcher(
    appDir: string,
    destination: string,
    macroExpander: (pattern: string) => string,
    platformOptions: { files?: string[] },
    packager: { config: BuilderConfig; debugLogger: { isEnabled: boolean } },
  ): { createFilter(): FileFilter };
};

function walk(dir: string): Array<{ path: string; stat: Stats }> {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const stat = statSync(path);
    return stat.isDirectory() ? walk(path) : [{ path, stat }];
  });
}

let config: BuilderConfig;

/** The `files` patterns, whether written as strings or (as the loader normalises them) as filters. */
function filePatterns(files: BuilderConfig['files']): string[] {
  return (files ?? []).flatMap((entry) => (typeof entry === 'string' ? [entry] : (entry.filter ?? [])));
}

beforeAll(async () => {
  config = await builderConfig.getConfig(root, `${root}electron-builder.yml`, null);
});

describe('electron-builder.yml', () => {
  it('matches app-builder-lib/scheme.json (ajv, draft-07)', () => {
    const schema = JSON.parse(readFileSync(require.resolve('app-builder-lib/scheme.json'), 'utf8')) as {
      $schema: string;
    };
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(schema);
    const valid = validate(config);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it("passes electron-builder's own validation, which does reject a misspelt fuse", async () => {
    await expect(
      builderConfig.validateConfiguration(config, new DebugLogger(false)),
    ).resolves.toBeUndefined();
    const misspelt = { ...config, electronFuses: { ...config.electronFuses, runAsNod: false } };
    await expect(builderConfig.validateConfiguration(misspelt, new DebugLogger(false))).rejects.toThrow(
      /electronFuses/,
    );
  });

  it.each([
    // The shipped CLI is the app's executable in Node mode (docs/DESKTOP-CHECKLIST.md#fuses).
    ['runAsNode', true],
    ['enableNodeOptionsEnvironmentVariable', false],
    ['enableNodeCliInspectArguments', false],
    ['onlyLoadAppFromAsar', true],
    ['enableEmbeddedAsarIntegrityValidation', true],
    ['enableCookieEncryption', false],
    // The window's page is a file:// page: pinned to Electron's default, so a change is a decision.
    ['grantFileProtocolExtraPrivileges', true],
    // Unsigned arm64 builds start: the fuse flip invalidates the ad-hoc signature unless it is reset.
    ['resetAdHocDarwinSignature', true],
  ])('fuse %s is %s', (fuse, value) => {
    expect(config.electronFuses?.[fuse]).toBe(value);
  });

  it('sets every fuse electron-builder knows, so none is left to a default by accident', () => {
    const schema = JSON.parse(readFileSync(require.resolve('app-builder-lib/scheme.json'), 'utf8')) as {
      definitions: { FuseOptionsV1: { properties: Record<string, unknown> } };
    };
    const known = Object.keys(schema.definitions.FuseOptionsV1.properties).sort();
    // The V8 snapshot fuse needs a snapshot the app does not build.
    expect(Object.keys(config.electronFuses ?? {}).sort()).toEqual(
      known.filter((fuse) => fuse !== 'loadBrowserProcessSpecificV8Snapshot'),
    );
  });

  it("builds the AppImage on the static runtime (no libfuse2), which drops the entry's --no-sandbox", () => {
    const schema = JSON.parse(readFileSync(require.resolve('app-builder-lib/scheme.json'), 'utf8')) as {
      definitions: { ToolsetConfig: { properties: { appimage: { anyOf: Array<{ enum?: string[] }> } } } };
    };
    const versions = schema.definitions.ToolsetConfig.properties.appimage.anyOf.flatMap((v) => v.enum ?? []);
    const appimage = (config.toolsets as { appimage?: string } | undefined)?.appimage;
    expect(versions).toContain(appimage);
    // 0.0.0 is the legacy type-2 runtime that needs libfuse2.
    expect(appimage).not.toBe('0.0.0');
    // electron-builder's AppImage target: the desktop entry gets --no-sandbox only for the legacy toolset, or
    // when executableArgs says so; this config says neither.
    const source = readFileSync(
      require.resolve('app-builder-lib/out/targets/appimage/AppImageTarget.js'),
      'utf8',
    );
    expect(source).toMatch(
      /appimageTool == null \|\| appimageTool === "0\.0\.0" \? \["--no-sandbox"\] : \[\]/,
    );
    expect((config.linux as { executableArgs?: unknown } | undefined)?.executableArgs).toBeUndefined();
    expect((config.appImage as { executableArgs?: unknown } | undefined)?.executableArgs).toBeUndefined();
  });

  it('release builds refuse to finish unsigned; local builds may be unsigned', () => {
    const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(config.forceCodeSigning).toBeUndefined();
    expect(pkg.scripts['dist:release']).toMatch(/electron-builder .*-c\.forceCodeSigning=true/);
  });

  it('packs the built app into asar, unpacks the native addon, and never rebuilds it', () => {
    expect(config.asar).toBe(true);
    expect(config.npmRebuild).toBe(false);
    expect(config.nodeGypRebuild).toBe(false);
    expect(config.buildDependenciesFromSource).toBe(false);
    expect(config.asarUnpack).toContain('**/node_modules/better-sqlite3/prebuilds/*.node');
    expect(filePatterns(config.files)).toEqual(
      expect.arrayContaining(['out/main/**', 'out/preload/**', 'out/renderer/**', 'package.json']),
    );
    // The CLI and the benchmark are built into out/ too, but are not part of the app.
    expect(filePatterns(config.files)).not.toContain('out/**');
    // A platform's own `files:` would become a second matcher over the whole project (test/main/electron/
    // packaging.test.ts lists what that packed).
    for (const platform of ['linux', 'mac', 'win'] as const) expect(config[platform]?.files).toBeUndefined();
  });

  it.each([
    ['linux', 'x64', 'linux-x64.node'],
    ['linux', 'arm64', 'linux-arm64.node'],
    ['mac', 'arm64', 'darwin-arm64.node'],
    ['mac', 'x64', 'darwin-x64.node'],
    ['win', 'x64', 'win32-x64.node'],
  ] as const)(
    "%s %s packs better-sqlite3's %s only, without its sources (electron-builder's own node_modules filter)",
    (platform, arch, binary) => {
      const packageDir = join(root, 'node_modules', 'better-sqlite3');
      // electron-builder expands ${platform} to the platform it runs on: each OS is packaged on itself.
      const osName = { linux: 'linux', mac: 'darwin', win: 'win32' }[platform];
      const macro = (pattern: string) =>
        pattern.replaceAll('${arch}', arch).replaceAll('${platform}', osName);
      const matcher = fileMatcher.getNodeModuleFileMatcher(root, '/app', macro, config[platform] ?? {}, {
        config,
        debugLogger: { isEnabled: false },
      });
      const keep = matcher.createFilter();
      const packed = walk(packageDir)
        .filter(({ path, stat }) => keep(path, stat))
        .map(({ path }) => relative(packageDir, path));
      expect(packed.filter((file) => file.startsWith('prebuilds/'))).toEqual([`prebuilds/${binary}`]);
      expect(packed.some((file) => file.startsWith('deps/') || file.startsWith('src/'))).toBe(false);
      expect(packed).toEqual(expect.arrayContaining(['package.json', 'lib/index.js', 'lib/binding.js']));
    },
  );

  it('ships the entry package.json points at', () => {
    const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { main: string };
    expect(pkg.main).toBe('out/main/index.js');
    expect(filePatterns(config.files).some((pattern) => pkg.main.startsWith(pattern.replace('**', '')))).toBe(
      true,
    );
  });

  it('names the app and registers the runwarden:// scheme', () => {
    expect(config.productName).toBe('Runwarden');
    expect(config.appId).toMatch(/^[a-z0-9.-]+$/);
    // Windows groups windows and attributes notifications by this id: the app sets the same one.
    expect(config.appId).toBe(APP_ID);
    expect(config.protocols).toEqual([{ name: expect.any(String), schemes: ['runwarden'] }]);
  });

  it('targets AppImage and deb on Linux, dmg on macOS, nsis on Windows, with files that exist', () => {
    expect(config.linux?.target).toEqual(['AppImage', 'deb']);
    expect(config.mac?.target).toEqual(['dmg', 'zip']);
    expect(config.win?.target).toEqual(['nsis']);
    expect(config.mac?.hardenedRuntime).toBe(true);
    for (const file of [config.linux?.icon, config.mac?.entitlements]) {
      expect(file && existsSync(`${root}${file}`)).toBe(true);
    }
  });
});

describe('what the deb step and the installers need', () => {
  const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
    productName?: string;
    homepage?: string;
    author?: { name?: string; email?: string };
  };
  const EMAIL = /^[^\s@<>]+@[^\s@<>]+\.[a-z]{2,}$/;

  it('package.json has a productName and an author, and no placeholder metadata (real or none)', () => {
    expect(pkg.productName).toBe(PRODUCT_NAME);
    expect(pkg.author?.name).toBeTruthy();
    const texts = [
      readFileSync(`${root}package.json`, 'utf8'),
      readFileSync(`${root}electron-builder.yml`, 'utf8'),
    ];
    for (const text of texts) expect(text).not.toMatch(/example\.(com|org|net)/i);
    expect(config.linux?.maintainer).toBeUndefined();
  });

  it("electron-builder's own deb metadata check: refused with the reason without a homepage and email, passed with them", async () => {
    const { default: FpmTarget } = require('app-builder-lib/out/targets/FpmTarget.js') as {
      default: { prototype: { computeFpmMetaInfoOptions(this: unknown): Promise<Record<string, string>> } };
    };
    const { AppInfo } = require('app-builder-lib/out/appInfo.js') as {
      AppInfo: { prototype: { computePackageUrl(this: unknown): Promise<string | null> } };
    };
    const check = (metadata: object, options: object) => {
      const info = { metadata, repositoryInfo: Promise.resolve(null) };
      const appInfo = {
        linuxPackageName: 'runwarden',
        computePackageUrl: () => AppInfo.prototype.computePackageUrl.call({ info, notNullDevMetadata: {} }),
      };
      return FpmTarget.prototype.computeFpmMetaInfoOptions.call({ packager: { appInfo, info }, options });
    };
    const options = { ...config.linux, ...(config.deb as object | undefined) };
    // As the repository stands: the deb step names both things a release must give.
    await expect(check(pkg, options)).rejects.toThrow(/homepage[\s\S]*email|email[\s\S]*homepage/i);
    // With a publisher's metadata (what scripts/release-check.js asks for) it passes.
    const published = {
      ...pkg,
      homepage: 'https://runwarden.test',
      author: { name: 'Someone', email: 'a@runwarden.test' },
    };
    expect(published.author.email).toMatch(EMAIL);
    await expect(check(published, options)).resolves.toMatchObject({
      maintainer: 'Someone <a@runwarden.test>',
      url: 'https://runwarden.test',
    });
  });

  it('publishes to GitHub Releases by default; the AppImage file name carries no version', () => {
    expect(config.publish).toEqual({ provider: 'github', releaseType: 'release' });
    expect((config.appImage as { artifactName?: string } | undefined)?.artifactName).toBe(
      '${productName}-${arch}.${ext}',
    );
  });

  it('macOS asks for alert-style notifications (needed for choice buttons)', () => {
    expect(config.mac?.extendInfo?.NSUserNotificationAlertStyle).toBe('alert');
  });

  it.each([
    ['valibot'],
    ['@noble/hashes'],
    ...[
      'electron-updater',
      'builder-util-runtime',
      'fs-extra',
      'graceful-fs',
      'jsonfile',
      'universalify',
    ].map((n) => [n]),
    ...[
      'js-yaml',
      'argparse',
      'lazy-val',
      'lodash.escaperegexp',
      'lodash.isequal',
      'semver',
      'tiny-typed-emitter',
    ].map((n) => [n]),
    ...['debug', 'ms', 'sax'].map((n) => [n]),
    ['smol-toml'],
    ['jsonc-parser'],
  ])("leaves %s's package out: it is bundled into out/main (smol-toml, jsonc-parser: out/cli)", (name) => {
    const matcher = fileMatcher.getNodeModuleFileMatcher(
      root,
      '/app',
      (p) => p.replaceAll('${arch}', 'x64').replaceAll('${platform}', 'linux'),
      config.linux ?? {},
      {
        config,
        debugLogger: { isEnabled: false },
      },
    );
    const keep = matcher.createFilter();
    const folder = join(root, 'node_modules', ...name.split('/'));
    const files = walk(folder);
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter(({ path, stat }) => keep(path, stat))).toEqual([]);
    expect(pkg).toBeTruthy();
  });
});

describe("the deb's install scripts put the CLI launcher on the PATH", () => {
  // electron-builder fills in ${name} macros and throws on any it does not know (FpmTarget's writeConfigFile).
  const MACROS = { executable: 'runwarden', sanitizedProductName: 'Runwarden' };
  const filled = (file: string): string =>
    readFileSync(`${root}${file}`, 'utf8').replace(/\$\{([a-zA-Z]+)\}/g, (_match, name: string) => {
      if (!(name in MACROS)) throw new Error(`${file}: macro ${name} is not defined`);
      return MACROS[name as keyof typeof MACROS];
    });

  it('the config names both scripts, and they exist', () => {
    const deb = config.deb as { afterInstall?: string; afterRemove?: string };
    expect(deb.afterInstall).toBe('build/linux/after-install.sh');
    expect(deb.afterRemove).toBe('build/linux/after-remove.sh');
  });

  it.each([['build/linux/after-install.sh'], ['build/linux/after-remove.sh']])(
    '%s uses only the macros electron-builder defines and is valid bash',
    (file) => {
      const script = filled(file);
      const checked = spawnSync('bash', ['-n'], { input: script, encoding: 'utf8' });
      expect(checked.stderr).toBe('');
      expect(checked.status).toBe(0);
    },
  );

  it('links /usr/bin/runwarden to resources/bin/runwarden (the launcher the app ships), and removes it', () => {
    const install = filled('build/linux/after-install.sh');
    expect(install).toContain(`cli="$app/resources/bin/runwarden"`);
    expect(install).toContain("app='/opt/Runwarden'");
    expect(install).toMatch(/update-alternatives --install '\/usr\/bin\/runwarden' 'runwarden' "\$cli"/);
    // The sandbox helper and the AppArmor profile, as electron-builder's own script does.
    expect(install).toContain('chrome-sandbox');
    expect(install).toContain('/etc/apparmor.d/runwarden');
    const remove = filled('build/linux/after-remove.sh');
    expect(remove).toContain('update-alternatives --remove \'runwarden\' "$cli"');
    expect(remove).toContain("cli='/opt/Runwarden/resources/bin/runwarden'");
    const launcher = statSync(`${root}build/cli/bin/runwarden`);
    expect(launcher.mode & 0o111).toBe(0o111);
  });
});
