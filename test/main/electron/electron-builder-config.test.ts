/**
 * electron-builder.yml validated offline (packaging itself needs downloads): loaded with electron-builder's
 * own loader, checked against app-builder-lib's scheme.json with ajv (draft-07) and with electron-builder's
 * own validator, then the settings that matter for security and for the native addon asserted.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
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
  protocols?: Array<{ name: string; schemes: string[] }>;
  electronFuses?: Record<string, boolean>;
  linux?: { target?: string[]; icon?: string };
  mac?: { target?: string[]; entitlements?: string; hardenedRuntime?: boolean };
  win?: { target?: string[] };
  [key: string]: unknown;
}

const builderConfig = require('app-builder-lib/out/util/config/config.js') as {
  getConfig(projectDir: string, configPath: string | null, configFromOptions: null): Promise<BuilderConfig>;
  validateConfiguration(config: BuilderConfig, debugLogger: unknown): Promise<void>;
};
const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };

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
    ['runAsNode', false],
    ['enableNodeOptionsEnvironmentVariable', false],
    ['enableNodeCliInspectArguments', false],
    ['onlyLoadAppFromAsar', true],
    ['enableEmbeddedAsarIntegrityValidation', true],
    ['enableCookieEncryption', true],
  ])('fuse %s is %s', (fuse, value) => {
    expect(config.electronFuses?.[fuse]).toBe(value);
  });

  it('packs the built app into asar and unpacks the native addon', () => {
    expect(config.asar).toBe(true);
    expect(config.npmRebuild).toBe(true);
    expect(config.asarUnpack).toContain('**/node_modules/better-sqlite3/**/*.node');
    expect(filePatterns(config.files)).toEqual(expect.arrayContaining(['out/**', 'package.json']));
  });

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
    expect(config.protocols).toEqual([{ name: expect.any(String), schemes: ['runwarden'] }]);
  });

  it('targets AppImage and deb on Linux, dmg on macOS, nsis on Windows, with files that exist', () => {
    expect(config.linux?.target).toEqual(['AppImage', 'deb']);
    expect(config.mac?.target).toEqual(['dmg']);
    expect(config.win?.target).toEqual(['nsis']);
    expect(config.mac?.hardenedRuntime).toBe(true);
    for (const file of [config.linux?.icon, config.mac?.entitlements]) {
      expect(file && existsSync(`${root}${file}`)).toBe(true);
    }
  });
});
