/**
 * One session with a remote Runwarden (docs/REMOTES.md): the system's `ssh` from PATH, never prompting
 * (BatchMode), running `RUNWARDEN serve --stdio` there; the hello both ways, then requests by id with
 * their replies in any order, and the remote's pushes. Every failure becomes a RemoteLinkError that says
 * what a person can do: connect once from a terminal, fix the command, upgrade one side, or wait.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { sanitizeLine } from '../../../shared/terminal-text';
import {
  encodeLine,
  LineSplitter,
  MAX_LINE_BYTES,
  MAX_PUSH_BYTES,
  mismatchMessage,
  parseLine,
  PROTOCOL_VERSION,
  ProtocolError,
  type ClientHello,
  type ClientMessage,
  type CliOutcome,
  type ServerHello,
} from './protocol';
import type { RemoteMachine } from './remotes';

export type RemoteFailure = 'needs-terminal' | 'unreachable' | 'no-runwarden' | 'protocol' | 'closed';

export class RemoteLinkError extends Error {
  constructor(
    readonly kind: RemoteFailure,
    message: string,
  ) {
    super(message);
    this.name = 'RemoteLinkError';
  }
}

export interface RemoteLinkOptions {
  remote: RemoteMachine;
  /** Who acts, as the remote records it (user@host here). */
  person: string;
  surface: ClientHello['surface'];
  /** Ask the remote for its change feed (the window); the CLI does not. */
  feed: boolean;
  /** This side's Runwarden version, said in the hello. */
  version: string;
  onPush?: (event: string, payload: unknown) => void;
  /** The session ended other than by close(). */
  onClose?: (error: RemoteLinkError) => void;
  env?: NodeJS.ProcessEnv;
  /** How long the connection and the hello may take. */
  connectTimeoutMs?: number;
}

export interface RemoteLink {
  readonly hello: ServerHello;
  call(channel: string, input: unknown): Promise<{ ok: boolean; value?: unknown; error?: unknown }>;
  cli(argv: string[]): Promise<CliOutcome>;
  close(): void;
  /** Pushes dropped for being over the size bound. */
  readonly droppedPushes: number;
}

const STDERR_KEEP = 4096;

/** The arguments given to ssh: never a prompt, no terminal, a dead link noticed within seconds. */
export function sshArgs(remote: RemoteMachine): string[] {
  return [
    '-o',
    'BatchMode=yes',
    '-o',
    'ConnectTimeout=10',
    '-o',
    'ServerAliveInterval=3',
    '-o',
    'ServerAliveCountMax=2',
    '-T',
    remote.dest,
    `${remote.runwarden} serve --stdio`,
  ];
}

/** `ssh DEST` as a person would type it (the destination quoted for a POSIX shell when it needs to be). */
export function terminalCommand(remote: RemoteMachine): string {
  const dest = /^[A-Za-z0-9_@%+=:,./-]+$/.test(remote.dest)
    ? remote.dest
    : `'${remote.dest.replaceAll("'", `'\\''`)}'`;
  return `ssh ${dest}`;
}

/** Why ssh or the remote command ended, from its exit code and the end of its stderr. */
export function classifyExit(remote: RemoteMachine, code: number | null, stderr: string): RemoteLinkError {
  const lines = stderr
    .split('\n')
    .map((l) => sanitizeLine(l).trim())
    .filter((l) => l !== '' && !l.startsWith('Warning: Permanently added'));
  // ssh's own lines begin "ssh: "; the message says "ssh: " once.
  const last = (lines.at(-1) ?? `exited with ${code ?? 'a signal'}`).replace(/^ssh: /, '').slice(0, 300);
  if (
    code === 255 &&
    /Permission denied|Host key verification failed|passphrase|password|HOST IDENTIFICATION HAS CHANGED|host key .*(not known|changed)|Too many authentication failures/i.test(
      stderr,
    )
  ) {
    return new RemoteLinkError(
      'needs-terminal',
      `${remote.name} needs a password, a passphrase or a host-key decision (ssh: ${last}): connect to it from a terminal once: ${terminalCommand(remote)}`,
    );
  }
  if (code === 255 || code === null) {
    return new RemoteLinkError('unreachable', `${remote.name}: unreachable — ssh: ${last}`);
  }
  if (code === 127 || code === 126) {
    return new RemoteLinkError(
      'no-runwarden',
      `Runwarden does not start on ${remote.name} with "${sanitizeLine(remote.runwarden)}" (${last}): install it there, or say how to start it: runwarden remote rm ${remote.name}, then runwarden remote add ${remote.name} DEST --runwarden 'COMMAND'`,
    );
  }
  if (code === 2 && /stdio/.test(stderr)) {
    return new RemoteLinkError(
      'protocol',
      `Runwarden on ${remote.name} cannot serve other machines (${last}): upgrade Runwarden on ${remote.name}`,
    );
  }
  return new RemoteLinkError('closed', `${remote.name}: the remote Runwarden ended (exit ${code}): ${last}`);
}

function checkHello(remote: RemoteMachine, message: Record<string, unknown>): ServerHello {
  if (message.t === 'bye') {
    throw new RemoteLinkError(
      'protocol',
      `${remote.name}: ${sanitizeLine(String(message.message)).slice(0, 400)}`,
    );
  }
  if (message.t !== 'hello' || typeof message.protocol !== 'number') {
    throw new RemoteLinkError('protocol', `${remote.name} did not answer as Runwarden (no hello).`);
  }
  const version = sanitizeLine(String(message.runwarden ?? '?')).slice(0, 40);
  if (message.protocol !== PROTOCOL_VERSION) {
    throw new RemoteLinkError(
      'protocol',
      mismatchMessage(message.protocol, version, remote.name, 'this machine'),
    );
  }
  return {
    t: 'hello',
    protocol: message.protocol,
    runwarden: version,
    store: sanitizeLine(String(message.store ?? '?')).slice(0, 1024),
    machine: sanitizeLine(String(message.machine ?? '?')).slice(0, 256),
  };
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: RemoteLinkError) => void;
}

/** Connects and says hello; rejects with a RemoteLinkError that says why not. */
export function connectRemote(options: RemoteLinkOptions): Promise<RemoteLink> {
  const { remote } = options;
  const child = spawn('ssh', sshArgs(remote), {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: options.env ?? process.env,
  });
  return new Promise<RemoteLink>((resolve, reject) => {
    const session = new Session(child, options, resolve, reject);
    session.start();
  });
}

/** The state of one ssh child: its pending requests, its stderr tail, and how it ends. */
class Session implements RemoteLink {
  hello!: ServerHello;
  droppedPushes = 0;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private stderr = '';
  private ended: RemoteLinkError | null = null;
  private closing = false;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly child: ChildProcess,
    private readonly options: RemoteLinkOptions,
    private readonly ready: (link: RemoteLink) => void,
    private readonly failed: (error: RemoteLinkError) => void,
  ) {}

  start(): void {
    const { child, options } = this;
    const splitter = new LineSplitter(MAX_LINE_BYTES, (line) => this.onLine(line));
    child.stdout?.on('data', (chunk: Buffer) => {
      try {
        splitter.push(chunk);
      } catch (error) {
        this.fail(this.asLinkError(error));
      }
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-STDERR_KEEP);
    });
    child.stdin?.on('error', () => {});
    child.once('error', (error) =>
      this.fail(
        new RemoteLinkError('unreachable', `${options.remote.name}: cannot start ssh: ${error.message}`),
      ),
    );
    child.once('close', (code) => this.fail(classifyExit(options.remote, code, this.stderr)));
    this.timer = setTimeout(
      () =>
        this.fail(
          new RemoteLinkError(
            'unreachable',
            `${options.remote.name}: unreachable — no answer within ${Math.round((options.connectTimeoutMs ?? 20_000) / 1000)} s`,
          ),
        ),
      options.connectTimeoutMs ?? 20_000,
    );
  }

  private asLinkError(error: unknown): RemoteLinkError {
    if (error instanceof RemoteLinkError) return error;
    const what = error instanceof ProtocolError ? error.message : String(error);
    return new RemoteLinkError(
      'protocol',
      `${this.options.remote.name} sent ${what}: the session was ended.`,
    );
  }

  private onLine(line: string): void {
    if (this.ended !== null) return;
    try {
      const message = parseLine(line);
      if (this.timer !== null) this.onHello(message);
      else this.onMessage(message);
    } catch (error) {
      this.fail(this.asLinkError(error));
    }
  }

  private onHello(message: Record<string, unknown>): void {
    this.hello = checkHello(this.options.remote, message);
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const { options } = this;
    this.send({
      t: 'hello',
      protocol: PROTOCOL_VERSION,
      runwarden: options.version,
      person: options.person,
      via: options.remote.name,
      surface: options.surface,
      feed: options.feed,
    });
    this.ready(this);
  }

  private onMessage(message: Record<string, unknown>): void {
    if (message.t === 'result' && typeof message.id === 'number') {
      const waiting = this.pending.get(message.id);
      if (waiting === undefined) return;
      this.pending.delete(message.id);
      waiting.resolve(message.result);
    } else if (message.t === 'push' && typeof message.event === 'string') {
      // Bounded: a push says what changed; one that carries more is dropped, not held.
      if (JSON.stringify(message.payload ?? null).length > MAX_PUSH_BYTES) this.droppedPushes += 1;
      else this.options.onPush?.(message.event, message.payload);
    } else if (message.t === 'bye') {
      const text = sanitizeLine(String(message.message)).slice(0, 400);
      this.fail(new RemoteLinkError('protocol', `${this.options.remote.name}: ${text}`));
    }
  }

  private send(message: ClientMessage): void {
    this.child.stdin?.write(encodeLine(message));
  }

  private request(message: Omit<ClientMessage, 'id'> & { t: 'call' | 'cli' }): Promise<unknown> {
    if (this.ended !== null) return Promise.reject(this.ended);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({ ...message, id } as ClientMessage);
    });
  }

  async call(channel: string, input: unknown): Promise<{ ok: boolean; value?: unknown; error?: unknown }> {
    const result = await this.request({ t: 'call', channel, input } as never);
    if (
      typeof result !== 'object' ||
      result === null ||
      typeof (result as { ok?: unknown }).ok !== 'boolean'
    ) {
      throw new RemoteLinkError('protocol', `${this.options.remote.name} sent a reply that is not a result.`);
    }
    return result as { ok: boolean };
  }

  async cli(argv: string[]): Promise<CliOutcome> {
    const result = (await this.request({ t: 'cli', argv } as never)) as {
      ok?: boolean;
      value?: Partial<CliOutcome>;
      error?: { message?: unknown };
    };
    if (result?.ok !== true) {
      const text = sanitizeLine(String(result?.error?.message ?? 'no reason given')).slice(0, 400);
      throw new RemoteLinkError('protocol', `${this.options.remote.name} refused the command: ${text}`);
    }
    const value = result.value ?? {};
    if (
      typeof value.code !== 'number' ||
      typeof value.stdout !== 'string' ||
      typeof value.stderr !== 'string'
    ) {
      throw new RemoteLinkError('protocol', `${this.options.remote.name} sent a reply that is not a result.`);
    }
    return { code: value.code, stdout: value.stdout, stderr: value.stderr };
  }

  /** Ends the session: ssh's stdin closes, the remote's serve --stdio sees it and exits. */
  close(): void {
    this.closing = true;
    this.fail(new RemoteLinkError('closed', `${this.options.remote.name}: the session was closed.`));
  }

  private fail(error: RemoteLinkError): void {
    if (this.ended !== null) return;
    this.ended = error;
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
      this.failed(error);
    }
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
    this.child.stdin?.end();
    // ssh has nothing more to do once its stdin closed; a hung one is not left behind.
    const kill = setTimeout(() => this.child.kill('SIGKILL'), 2000);
    kill.unref();
    this.child.once('close', () => clearTimeout(kill));
    if (this.child.exitCode !== null || this.child.signalCode !== null) clearTimeout(kill);
    if (!this.closing) this.options.onClose?.(error);
  }
}
