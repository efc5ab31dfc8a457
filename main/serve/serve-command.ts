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
import { describeMigration } from '../store/migrations/migration';
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

/** What `serve` was asked for, once its flags are read and checked. */
interface ServeRequest {
  port: number;
  uiDir: string;
  storePath: string;
  json: boolean;
}

/** Parse → open the host → listen → announce → run until stopped; each phase a function below. */
export async function runServeCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const request = parseServeArgs(argv, env);
  if (typeof request === 'number') return request;
  let server: ServeHandle | null = null;
  const host = openServeHost(request.storePath, (event, payload) => server?.push(event, payload));
  if (typeof host === 'number') return host;
  const token = randomBytes(32).toString('hex');
  server = await listen(request, host, token);
  if (server === null) return 1;
  host.start();
  announce(request, server, token);
  await untilStopped();
  host.dispose();
  await server.close();
  return 0;
}

/** The flags, checked; an exit code when there is nothing to serve (help, or a usage error). */
function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv): ServeRequest | number {
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
  return { port, uiDir, storePath, json: values.json === true };
}

/** The app's handlers over the store; an exit code when the store cannot be opened (5 locked or busy). */
function openServeHost(storePath: string, push: PushSink): AppHost | number {
  try {
    return createAppHost({
      storePath,
      surface: 'browser',
      actorId: safeUserName(),
      notifier: { show: () => {} },
      push,
      onMigrated: (report) =>
        process.stderr.write(`runwarden serve: ${describeMigration(report, storePath)}\n`),
    });
  } catch (error) {
    if (isRunwardenError(error)) {
      process.stderr.write(`runwarden serve: ${error.message}\n`);
      return error.code === 'STORE_LOCKED' || error.code === 'BUSY' ? 5 : 1;
    }
    throw error;
  }
}

/** Listens on loopback; null (the host disposed, the reason said) when the port cannot be had. */
async function listen(request: ServeRequest, host: AppHost, token: string): Promise<ServeHandle | null> {
  try {
    return await startHttpServer({
      token,
      port: request.port,
      uiDir: request.uiDir,
      dispatch: (channel, input, origin) => host.dispatch(channel as never, input, origin),
      onSignIn: (next) => {
        // A person at the terminal may open another browser; a --json reader asks the API for a URL.
        if (!request.json) process.stdout.write(`A browser signed in. To sign in another, open ${next}\n`);
      },
    });
  } catch (error) {
    host.dispose();
    process.stderr.write(
      `runwarden serve: cannot listen on 127.0.0.1:${request.port}: ${(error as Error).message}\n`,
    );
    return null;
  }
}

/** The sign-in URL for a person, or one JSON line for a program. */
function announce(request: ServeRequest, server: ServeHandle, token: string): void {
  if (request.json) {
    process.stdout.write(
      `${JSON.stringify({ url: server.url, port: server.port, token, store: request.storePath })}\n`,
    );
  } else {
    process.stdout.write(
      `Runwarden is serving ${server.url}\n(the URL signs one browser in, once)\nStore: ${request.storePath}\nStop with Ctrl-C.\n`,
    );
  }
}

function untilStopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

function safeUserName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return 'person';
  }
}
