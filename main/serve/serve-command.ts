/**
 * `runwarden serve`: the app's handlers, sweeper and UI over loopback HTTP (browser mode). Runs until
 * SIGINT/SIGTERM, then stops the sweeper, closes the store and the server.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isRunwardenError } from '../../shared/errors';
import { createAppHost } from '../services/app-host';
import type { AppHost, PushSink } from '../services/host-types';
import { resolveStorePath } from '../store';
import { startHttpServer, type ServeHandle } from './http-server';

export const SERVE_HELP = `Usage: runwarden serve [--port N] [--store PATH] [--ui-dir DIR] [--json]

Serves the Runwarden UI and its API on http://127.0.0.1 only, and runs the sweeper. Open the printed URL
in a browser on this machine: it signs that browser in once, and serve prints a new URL for the next one.
Stop with Ctrl-C.

  --port N       port to listen on (default: a free one)
  --store PATH   the store file (default: $RUNWARDEN_STORE, else the per-user data folder)
  --ui-dir DIR   the built renderer to serve (default: the one next to this CLI build)
  --json         print {"url","port","token","store"} as one JSON line once listening (url signs in
                 once; token is for API clients: Authorization: Bearer TOKEN, never a URL)
  -h, --help     show this help`;

/**
 * The built renderer next to the CLI bundle: out/renderer/, seen from out/cli/runwarden.js or from a
 * chunk in out/cli/chunks/ (the bundler decides where this module lands).
 */
export function defaultUiDir(): string {
  const candidates = ['../renderer/', '../../renderer/'].map((rel) =>
    fileURLToPath(new URL(rel, import.meta.url)),
  );
  return candidates.find((dir) => existsSync(`${dir}index.html`)) ?? (candidates[0] as string);
}

export async function runServeCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        store: { type: 'string' },
        'ui-dir': { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    process.stderr.write(`runwarden serve: ${(error as Error).message}\n${SERVE_HELP}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${SERVE_HELP}\n`);
    return 0;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    process.stderr.write(
      `runwarden serve: --port must be an integer from 0 to 65535, got "${values.port}"\n`,
    );
    return 2;
  }
  const uiDir = values['ui-dir'] ?? defaultUiDir();
  if (!existsSync(uiDir)) {
    process.stderr.write(
      `runwarden serve: the UI is not built at ${uiDir} (run npm run build); serving the API only.\n`,
    );
  }
  const storePath = resolveStorePath({ flag: values.store, env });
  const token = randomBytes(32).toString('hex');

  let server: ServeHandle | null = null;
  const push: PushSink = (event, payload) => server?.push(event, payload);
  let host: AppHost;
  try {
    host = createAppHost({
      storePath,
      surface: 'browser',
      actorId: safeUserName(),
      notifier: { show: () => {} },
      push,
    });
  } catch (error) {
    if (isRunwardenError(error)) {
      process.stderr.write(`runwarden serve: ${error.message}\n`);
      return error.code === 'STORE_LOCKED' || error.code === 'BUSY' ? 5 : 1;
    }
    throw error;
  }

  try {
    server = await startHttpServer({
      token,
      port,
      uiDir,
      dispatch: (channel, input) => host.dispatch(channel as never, input),
      onSignIn: (next) => {
        // A person at the terminal may open another browser; a --json reader asks the API for a URL.
        if (!values.json) process.stdout.write(`A browser signed in. To sign in another, open ${next}\n`);
      },
    });
  } catch (error) {
    host.dispose();
    process.stderr.write(
      `runwarden serve: cannot listen on 127.0.0.1:${port}: ${(error as Error).message}\n`,
    );
    return 1;
  }
  host.start();
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ url: server.url, port: server.port, token, store: storePath })}\n`,
    );
  } else {
    process.stdout.write(
      `Runwarden is serving ${server.url}\n(the URL signs one browser in, once)\nStore: ${storePath}\nStop with Ctrl-C.\n`,
    );
  }

  const running = server;
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  host.dispose();
  await running.close();
  return 0;
}

function safeUserName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return 'person';
  }
}
