/**
 * The remote protocol (docs/REMOTES.md#the-protocol): what `runwarden serve --stdio` and the machine that
 * reaches it over SSH say to each other, one JSON object per line. Both sides check every line: a line
 * over its size bound, or one that is not an object of a known kind, ends the session with a clear error.
 */

/** Bumped when either side would misread the other; a mismatch says which side to upgrade. */
export const PROTOCOL_VERSION = 1;

/** The largest line either side accepts (a reply carrying a run's detail or a page of its log fits). */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;
/** The largest push a client accepts: a push says what changed, never carries rows. */
export const MAX_PUSH_BYTES = 64 * 1024;
/**
 * The most output text one `runs:log` reply carries: a run that printed more since the last read is
 * answered with its latest records within the bound, marked `reset` (a fresh tail, not a continuation).
 */
export const MAX_LOG_REPLY_CHARS = 1024 * 1024;
/** What a forwarded command may print, per stream, before its output is cut. */
export const MAX_CLI_OUTPUT_BYTES = 4 * 1024 * 1024;

/** The commands a `cli` request may run on the remote: those that take a `NAME:ID`, and `ls`. */
export const REMOTE_CLI_COMMANDS = ['answer', 'cancel', 'resolve', 'retry', 'show', 'logs', 'ls'] as const;

export interface ServerHello {
  t: 'hello';
  protocol: number;
  runwarden: string;
  store: string;
  machine: string;
}

export interface ClientHello {
  t: 'hello';
  protocol: number;
  runwarden: string;
  /** Who acts (user@host on the machine the person is at); recorded on the remote with `via`. */
  person: string;
  /** The remote's name on the person's machine. */
  via: string;
  surface: 'cli' | 'app' | 'browser';
  /** Start the remote's host and send its change feed. */
  feed: boolean;
}

export interface CallRequest {
  t: 'call';
  id: number;
  channel: string;
  input: unknown;
}

export interface CliRequest {
  t: 'cli';
  id: number;
  argv: string[];
}

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ResultMessage {
  t: 'result';
  id: number;
  result: { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } };
}

export interface PushMessage {
  t: 'push';
  event: string;
  payload: unknown;
}

/** The last word of a side that stops talking (a protocol mismatch, a bad line). */
export interface ByeMessage {
  t: 'bye';
  code: string;
  message: string;
}

export type ClientMessage = ClientHello | CallRequest | CliRequest;
export type ServerMessage = ServerHello | ResultMessage | PushMessage | ByeMessage;

/** One message as one line. */
export function encodeLine(message: ClientMessage | ServerMessage): string {
  return `${JSON.stringify(message)}\n`;
}

export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/**
 * Splits a byte stream into lines, refusing one longer than `maxBytes` before it is buffered whole: a peer
 * cannot make this side hold more than the bound.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(10, start);
      if (end === -1) break;
      this.take(chunk.subarray(start, end));
      const line = Buffer.concat(this.pending).toString('utf8');
      this.pending = [];
      this.pendingBytes = 0;
      if (line.trim() !== '') this.onLine(line);
      start = end + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
  }

  private take(part: Buffer): void {
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.maxBytes) {
      this.pending = [];
      throw new ProtocolError(`a message longer than ${this.maxBytes} bytes`);
    }
    this.pending.push(part);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A line parsed as an object with a string `t`, or a ProtocolError. */
export function parseLine(line: string): Record<string, unknown> & { t: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new ProtocolError('a line that is not JSON');
  }
  if (!isObject(value) || typeof value.t !== 'string')
    throw new ProtocolError('a line that is not a message');
  return value as Record<string, unknown> & { t: string };
}

/**
 * What to say when the two sides speak different protocols, from the side that noticed: `theirs` is the
 * other side's protocol, `them` how to name it ("box", "the machine that connected").
 */
export function mismatchMessage(theirs: number, theirVersion: string, them: string, here: string): string {
  const upgrade = theirs > PROTOCOL_VERSION ? here : them;
  return (
    `${them} runs Runwarden ${theirVersion} (remote protocol ${theirs}) and ${here} speaks protocol ` +
    `${PROTOCOL_VERSION}: upgrade Runwarden on ${upgrade}`
  );
}
