/**
 * `runwarden serve --stdio` spoken to directly, without SSH (docs/REMOTES.md#the-protocol): the hello both
 * ways, requests by id, forwarded commands and what they may not do, the change feed, and the bounds.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_LINE_BYTES,
  MAX_LOG_REPLY_CHARS,
  PROTOCOL_VERSION,
} from '../../../main/services/remote/protocol';
import { machineIdentity, openStore } from '../../../main/store';
import { runCli, tempDir, waitFor, type TempDir } from '../../helpers/cli';
import { testCliBin } from '../../helpers/paths';

let dir: TempDir;
beforeAll(async () => {
  dir = tempDir('runwarden-stdio-');
  const first = await runCli(['exec', '--project', dir.path, '--title', 'first', '--', 'true'], {
    store: dir.store,
  });
  if (first.code !== 0) throw new Error(`exec failed: ${first.stderr}`);
});
afterAll(() => dir.remove());

/** A line from the server, loosely: each test reads the fields its message has. */
interface Message {
  t: string;
  id?: number;
  protocol?: number;
  store?: string;
  message: string;
  event?: string;
  payload: { runIds: string[] };
  result: {
    ok: boolean;
    value: { items: Array<{ run: { title: string } }>; code: number; stdout: string };
    error: { code: string };
  };
}

interface Server {
  child: ChildProcessWithoutNullStreams;
  messages: Array<Message>;
  send(message: unknown): void;
  next(predicate: (m: Message) => boolean, what: string): Promise<Message>;
  exited: Promise<number | null>;
}

function serve(): Server {
  const child = spawn(process.execPath, [testCliBin(), 'serve', '--stdio'], {
    env: { ...process.env, RUNWARDEN_STORE: dir.store },
  });
  const messages: Array<Message> = [];
  let buffer = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf('\n')) !== -1) {
      messages.push(JSON.parse(buffer.slice(0, end)));
      buffer = buffer.slice(end + 1);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    messages,
    exited,
    send: (message) =>
      child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`),
    next: (predicate, what) => waitFor(what, () => messages.find(predicate), 20_000, 20),
  };
}

const hello = (extra: Record<string, unknown> = {}) => ({
  t: 'hello',
  protocol: PROTOCOL_VERSION,
  runwarden: 'test',
  person: 'ada@laptop',
  via: 'box',
  surface: 'cli',
  feed: false,
  ...extra,
});

describe('serve --stdio', () => {
  it('says hello first, answers calls and forwarded commands by id, and ends with stdin', async () => {
    const server = serve();
    const first = await server.next((m) => m.t === 'hello', 'the hello');
    expect(first).toMatchObject({ protocol: PROTOCOL_VERSION, store: dir.store });
    server.send(hello());
    server.send({ t: 'call', id: 7, channel: 'runs:list', input: { limit: 5 } });
    server.send({ t: 'cli', id: 8, argv: ['ls', '--json'] });
    server.send({ t: 'call', id: 9, channel: 'runs:list', input: { limit: 'x' } });
    const list = await server.next((m) => m.id === 7, 'the list');
    expect(list.result.ok).toBe(true);
    expect(list.result.value.items[0]?.run.title).toBe('first');
    const ls = await server.next((m) => m.id === 8, 'the ls');
    expect(ls.result.value.code).toBe(0);
    expect(JSON.parse(ls.result.value.stdout).value.items[0].run.title).toBe('first');
    expect((await server.next((m) => m.id === 9, 'the bad call')).result.error.code).toBe('VALIDATION');
    server.child.stdin.end();
    expect(await server.exited).toBe(0);
  });

  it('runs only the commands another machine may run, on its own store only', async () => {
    const server = serve();
    server.send(hello());
    server.send({ t: 'cli', id: 1, argv: ['exec', '--', 'touch', '/tmp/x'] });
    server.send({ t: 'cli', id: 2, argv: ['ls', '--store', '/tmp/other.sqlite'] });
    server.send({ t: 'cli', id: 3, argv: ['show', 'other:run_01'] });
    server.send({ t: 'cli', id: 4, argv: ['show', 'run_01'] });
    for (const id of [1, 2, 3]) {
      const refused = await server.next((m) => m.id === id, `refusal ${id}`);
      expect(refused.result).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
    }
    expect((await server.next((m) => m.id === 4, 'the show')).result.value.code).toBe(4);
    server.child.stdin.end();
    expect(await server.exited).toBe(0);
  });

  it('says which side to upgrade when the protocols differ, and ends', async () => {
    const server = serve();
    server.send(hello({ protocol: PROTOCOL_VERSION + 1, runwarden: '9.0.0' }));
    const bye = await server.next((m) => m.t === 'bye', 'the bye');
    expect(bye.message).toContain('upgrade Runwarden on');
    expect(bye.message).toContain(`remote protocol ${PROTOCOL_VERSION + 1}`);
    expect(await server.exited).toBe(0);
  });

  it('ends the session on a line over the bound or one that is not a message', async () => {
    const server = serve();
    server.send(hello());
    server.send('x'.repeat(MAX_LINE_BYTES + 10));
    expect((await server.next((m) => m.t === 'bye', 'the bye')).message).toContain('longer than');
    expect(await server.exited).toBe(0);
    const other = serve();
    other.send('[1,2]');
    expect((await other.next((m) => m.t === 'bye', 'the bye')).message).toContain('not a message');
    expect(await other.exited).toBe(0);
  });

  it('with the feed on, pushes a change made by another process', async () => {
    const server = serve();
    server.send(hello({ feed: true, surface: 'app' }));
    await server.next((m) => m.t === 'push' && m.event === 'attention', 'the first attention push');
    expect(
      (await runCli(['exec', '--project', dir.path, '--title', 'second', '--', 'true'], { store: dir.store }))
        .code,
    ).toBe(0);
    const changed = await server.next((m) => m.t === 'push' && m.event === 'changed', 'a changed push');
    expect(changed.payload.runIds.length).toBeGreaterThan(0);
    server.child.stdin.end();
    expect(await server.exited).toBe(0);
  });

  it('with the feed on, its own sweeper still sweeps: a run whose runner died turns stale on time', async () => {
    const server = serve();
    server.send(hello({ feed: true, surface: 'app' }));
    await server.next((m) => m.t === 'push' && m.event === 'attention', 'the first attention push');
    // A runner on this machine that is gone (its pid exited), claimed after the first tick.
    const gone = spawnSync('true').pid as number;
    const store = openStore(dir.store);
    let runId: string;
    try {
      const run = store.reserveRun(
        {
          projectPath: dir.path,
          workflow: 'build',
          title: 'runner died',
          input: null,
          requestKey: null,
          executionMode: 'interactive',
        },
        { type: 'runner', id: 'runner-x', surface: 'sdk' },
      );
      runId = run.id;
      store.claimRun(run.id, {
        ownerType: 'runner',
        ownerId: 'runner-x',
        pid: gone,
        hostname: hostname(),
        startId: 'gone',
        bootId: machineIdentity().bootId,
        pidNs: machineIdentity().pidNs,
        // Judged gone at the next tick; were it not, by the clock a tick after the lease ends.
        leaseMs: 3_000,
      });
    } finally {
      store.close();
    }
    // The next tick (every 2 s) finds the runner gone, on this machine's own store; the feed says so.
    let id = 100;
    await waitFor(
      'the run stale',
      async () => {
        id += 1;
        server.send({ t: 'call', id, channel: 'runs:detail', input: { runId, eventsLimit: 1 } });
        const reply = (await server.next((m) => m.id === id, 'the detail')) as unknown as {
          result: { ok: boolean; value: { display: { status: string } } };
        };
        return reply.result.value.display.status === 'stale';
      },
      20_000,
      200,
    );
    await server.next(
      (m) => m.t === 'push' && m.event === 'changed' && m.payload.runIds.includes(runId),
      'a changed push naming the run',
    );
    server.child.stdin.end();
    expect(await server.exited).toBe(0);
  });

  it("answers a page of a run's output within its bound: the latest records, a fresh tail", async () => {
    // ~3 MB of output in 8,000-character lines: more than one reply carries.
    const big = await runCli(
      [
        'exec',
        '--project',
        dir.path,
        '--title',
        'loud',
        '--',
        'sh',
        '-c',
        "head -c 3000000 /dev/zero | tr '\\0' x | fold -w 8000",
      ],
      { store: dir.store },
    );
    expect(big.code).toBe(0);
    const runId = /run_[0-9a-z]+/.exec(big.stderr)?.[0];
    const server = serve();
    server.send(hello());
    server.send({ t: 'call', id: 1, channel: 'runs:log', input: { runId, afterSeq: 0 } });
    server.send({ t: 'call', id: 2, channel: 'runs:log', input: { runId, tail: 5 } });
    interface LogPage {
      records: Array<{ text: string; seq: number }>;
      reset: boolean;
      lastSeq: number;
    }
    const page = (await server.next((m) => m.id === 1, 'the page')).result.value as unknown as LogPage;
    const chars = page.records.reduce((n, r) => n + r.text.length, 0);
    expect(chars).toBeLessThanOrEqual(MAX_LOG_REPLY_CHARS);
    expect(chars).toBeGreaterThan(MAX_LOG_REPLY_CHARS / 2);
    expect(page.reset).toBe(true);
    // The latest records: the last one read is the log's last.
    expect(page.records.at(-1)?.seq).toBe(page.lastSeq);
    const small = (await server.next((m) => m.id === 2, 'the tail')).result.value as unknown as LogPage;
    expect(small.records).toHaveLength(5);
    expect(small.reset).toBe(false);
    server.child.stdin.end();
    expect(await server.exited).toBe(0);
  });
});
