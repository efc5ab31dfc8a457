/**
 * A store path whose folders cannot be made is refused with the reason (READ_ONLY, exit 9), at once: under
 * /proc, Node's recursive mkdir never returns, so the store makes its folders one at a time. The hint points
 * at the path, not at doctor.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';

describe('the store folder', () => {
  it.skipIf(process.platform !== 'linux')(
    'under /proc is refused with the reason, not waited on forever',
    async () => {
      const result = await runCli(['exec', '--', 'true'], {
        store: '/proc/self/runwarden-store/state.sqlite',
        timeoutMs: 30_000,
      });
      expect(result.signal).toBeNull();
      expect(result.code).toBe(9);
      expect(result.stderr).toMatch(/Cannot create the store folder \/proc\/self\/runwarden-store/);
      // The path is the problem, not a read-only store: the hint says where to choose another.
      expect(result.stderr).toMatch(/choose where the store goes with --store PATH or RUNWARDEN_STORE/);
      expect(result.stderr).not.toMatch(/doctor/);
    },
  );
});
