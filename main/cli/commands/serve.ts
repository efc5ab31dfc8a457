/**
 * `runwarden serve`: browser mode (docs/ARCHITECTURE.md#browser-mode). The command lives in main/serve/
 * (its own owner); this stub loads it lazily so the rest of the CLI never pays for the HTTP server.
 */
/// <reference types="vite/types/importMeta.d.ts" />
import { RunwardenError } from '../../../shared/errors';
import { COMMON_HELP, type Command } from '../command';
import { EXIT } from '../exit-codes';

interface ServeModule {
  runServeCommand(argv: string[]): Promise<number> | number;
}

// import.meta.glob resolves at build time to {} when main/serve/serve-command.ts does not exist yet,
// instead of failing the whole CLI build on a missing import.
const serveModules = import.meta.glob<ServeModule>('../../serve/serve-command.ts');

export const serveCommand: Command = {
  name: 'serve',
  summary: 'browser mode: the app over loopback HTTP with a token',
  help: `Usage: runwarden serve [options]

Serves the Runwarden UI and its API on 127.0.0.1 with a random token, for machines without a
desktop. Run "runwarden serve --help" for its options once browser mode is built in.
"runwarden serve --stdio" serves this machine to another one over SSH instead (docs/REMOTES.md).
${COMMON_HELP}`,
  async run(ctx, argv) {
    // The other machines' way in, over SSH (docs/REMOTES.md): no HTTP, no port.
    if (argv.includes('--stdio')) {
      const { runStdioServer } = await import('../remote/stdio-server');
      return runStdioServer(argv, ctx.binPath, ctx.runCommandLine);
    }
    const load = Object.values(serveModules)[0];
    if (load === undefined) {
      if (argv.includes('--help') || argv.includes('-h')) {
        ctx.stdout.write(`${this.help}\n`);
        return EXIT.ok;
      }
      throw new RunwardenError(
        'INTERNAL',
        'browser mode is not part of this build: main/serve/serve-command.ts is missing (rebuild with npm run build:cli once it exists)',
      );
    }
    const module = await load();
    return module.runServeCommand(argv);
  },
};
