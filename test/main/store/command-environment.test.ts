/** A command's recorded environment (docs/CLI.md#what-exec-records): what is stored, what a retry gets. */
import { describe, expect, it } from 'vitest';
import {
  environmentDifferences,
  environmentForRetry,
  isSecretName,
  recordEnvironment,
} from '../../../shared/command-environment';
import { createTempStore, RUNNER_ACTOR } from '../../helpers/temp-store';

describe('a recorded environment', () => {
  it('knows secret-looking names, case-insensitively, anywhere in the name', () => {
    for (const name of [
      'GITHUB_TOKEN',
      'aws_secret_access_key',
      'DB_PASSWORD',
      'ApiKey',
      'GOOGLE_CREDENTIALS',
      'X_AUTH',
      'cookie_jar',
      'XDG_SESSION_ID',
    ])
      expect(isSecretName(name)).toBe(true);
    for (const name of ['VERSION', 'PATH', 'HOME', 'RELEASE_DIR']) expect(isSecretName(name)).toBe(false);
  });

  it('keeps names and values, drops secret values and the runner’s own variables', () => {
    expect(
      recordEnvironment({
        VERSION: '3.1.0',
        NPM_TOKEN: 'abc',
        RUNWARDEN_RUN_ID: 'run_x',
        _: '/usr/bin/env',
        GONE: undefined,
      }),
    ).toEqual({ VERSION: '3.1.0', NPM_TOKEN: null });
  });

  it('gives a retry the recorded values and the worker’s secrets, and lists what differs', () => {
    const recorded = { VERSION: '3.1.0', NPM_TOKEN: null, SSH_AUTH_SOCK: null };
    expect(environmentForRetry(recorded, { VERSION: '1.0.0', NPM_TOKEN: 'w', EXTRA: 'x' })).toEqual({
      env: { VERSION: '3.1.0', NPM_TOKEN: 'w' },
      fromHere: ['NPM_TOKEN'],
      missing: ['SSH_AUTH_SOCK'],
    });
    expect(
      environmentDifferences(
        { VERSION: '3.1.0', SAME: 'a', NPM_TOKEN: null },
        { VERSION: '1.0.0', SAME: 'a' },
      ),
    ).toEqual([
      { name: 'VERSION', recorded: '3.1.0', here: '1.0.0' },
      { name: 'NPM_TOKEN', recorded: null, here: null },
    ]);
  });

  it('is never stored with a secret value, whatever the caller passes, and bad shapes are refused', () => {
    const t = createTempStore();
    try {
      const input = {
        projectPath: t.projectDir,
        workflow: 'w',
        title: 't',
        executionMode: 'headless' as const,
      };
      const run = t.store.reserveRun(
        { ...input, command: { argv: ['true'], cwd: t.projectDir, env: { VERSION: '2', API_KEY: 'leak' } } },
        RUNNER_ACTOR,
      );
      expect(t.store.getRun(run.id).command?.env).toEqual({ VERSION: '2', API_KEY: null });
      const bad = (env: unknown) => () =>
        t.store.reserveRun(
          { ...input, command: { argv: ['true'], cwd: t.projectDir, env: env as Record<string, string> } },
          RUNNER_ACTOR,
        );
      expect(bad(['x'])).toThrow(/command.env/);
      expect(bad({ 'A=B': 'x' })).toThrow(/invalid variable name/);
      expect(bad({ A: 3 })).toThrow(/must be a string/);
    } finally {
      t.cleanup();
    }
  });
});
