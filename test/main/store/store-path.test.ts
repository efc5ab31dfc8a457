import { describe, expect, it } from 'vitest';
import { resolveStorePath } from '../../../main/store/store-path';

describe('resolveStorePath', () => {
  const home = '/home/ann';
  it('flag beats RUNWARDEN_STORE beats the default', () => {
    const env = { RUNWARDEN_STORE: '/env/s.sqlite', XDG_DATA_HOME: '/xdg' };
    expect(resolveStorePath({ flag: '/flag/s.sqlite', env, platform: 'linux', home })).toBe('/flag/s.sqlite');
    expect(resolveStorePath({ env, platform: 'linux', home })).toBe('/env/s.sqlite');
  });

  it('uses the platform data folder', () => {
    expect(resolveStorePath({ env: { XDG_DATA_HOME: '/xdg' }, platform: 'linux', home })).toBe(
      '/xdg/runwarden/state.sqlite',
    );
    expect(resolveStorePath({ env: {}, platform: 'linux', home })).toBe(
      '/home/ann/.local/share/runwarden/state.sqlite',
    );
    expect(resolveStorePath({ env: { XDG_DATA_HOME: 'relative' }, platform: 'linux', home })).toBe(
      '/home/ann/.local/share/runwarden/state.sqlite',
    );
    expect(resolveStorePath({ env: {}, platform: 'darwin', home })).toBe(
      '/home/ann/Library/Application Support/runwarden/state.sqlite',
    );
    expect(
      resolveStorePath({
        env: { APPDATA: 'C:\\Users\\ann\\AppData\\Roaming' },
        platform: 'win32',
        home: 'C:\\Users\\ann',
      }),
    ).toBe('C:\\Users\\ann\\AppData\\Roaming\\runwarden\\state.sqlite');
  });

  it('ignores empty values', () => {
    expect(resolveStorePath({ flag: '', env: { RUNWARDEN_STORE: '' }, platform: 'linux', home })).toBe(
      '/home/ann/.local/share/runwarden/state.sqlite',
    );
  });
});
