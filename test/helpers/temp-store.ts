/**
 * A store in a fresh temp folder with a fake clock (tests never sleep). Reusable by every layer's tests:
 *   const t = createTempStore(); t.clock.advance(30_000); t.store.heartbeat(...); t.cleanup();
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Actor, ExecutionMode } from '../../shared/domain';
import { openStore, type OpenStoreOptions } from '../../main/store/open-store';
import type { RunStore } from '../../main/store/run-store';
import type { ReadonlyStore } from '../../main/store/store-facets';
import type { Claim, OwnerInfo } from '../../main/store/store-types';

export interface FakeClock {
  (): number;
  now(): number;
  set(ms: number): void;
  advance(ms: number): number;
}

/** Starts at 2025-01-01T00:00:00Z unless told otherwise. */
export function createFakeClock(start = Date.UTC(2025, 0, 1)): FakeClock {
  let current = start;
  const clock = (() => current) as FakeClock;
  clock.now = () => current;
  clock.set = (ms: number) => {
    current = ms;
  };
  clock.advance = (ms: number) => {
    current += ms;
    return current;
  };
  return clock;
}

export interface TempStore {
  dir: string;
  /** The store file. */
  path: string;
  /** A folder that exists, to use as a run's projectPath. */
  projectDir: string;
  clock: FakeClock;
  store: RunStore;
  /**
   * Opens another connection to the same file (another "process" view), same clock unless given; asked
   * for read-only, a reader.
   */
  reopen(opts: WriterOptions & { readonly: true }): ReadonlyStore;
  reopen(opts?: WriterOptions): RunStore;
  cleanup(): void;
}

export function makeTempDir(prefix = 'runwarden-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Options of a store opened to write (the temp store and most reopens). */
type WriterOptions = Omit<OpenStoreOptions, 'readonly'>;

export function createTempStore(opts: WriterOptions & { start?: number } = {}): TempStore {
  const dir = makeTempDir();
  const storePath = path.join(dir, 'data', 'state.sqlite');
  const projectDir = path.join(dir, 'project');
  fs.mkdirSync(projectDir);
  const clock = createFakeClock(opts.start);
  const store = openStore(storePath, { clock, ...opts });
  const opened: Array<{ close(): void }> = [store];
  return {
    dir,
    path: storePath,
    projectDir,
    clock,
    store,
    reopen: ((more: WriterOptions & { readonly?: true } = {}) => {
      const another =
        more.readonly === true
          ? openStore(storePath, { clock, ...more, readonly: true })
          : openStore(storePath, { clock, ...more, readonly: false });
      opened.push(another);
      return another;
    }) as TempStore['reopen'],
    cleanup() {
      for (const s of opened) s.close();
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}

/**
 * An `access` check that finds nothing writable, so a store opens read-only as it would on a read-only
 * file; injected because tests run as root, who may write anything.
 */
export function denyWrites(target: string): never {
  throw Object.assign(new Error(`EACCES: ${target}`), { code: 'EACCES' });
}

export const HUMAN: Actor = { type: 'human', id: 'alice', surface: 'app' };
export const RUNNER_ACTOR: Actor = { type: 'runner', id: 'runner-1', surface: 'sdk' };
export const SWEEPER: Actor = { type: 'host', id: 'sweeper', surface: 'sweeper' };

export function runnerOwner(id = 'runner-1', over: Partial<OwnerInfo> = {}): OwnerInfo {
  return { ownerType: 'runner', ownerId: id, pid: 4242, hostname: 'test-host', startId: '777', ...over };
}

/** Reserves a run in the temp project. */
export function reserve(
  t: TempStore,
  over: {
    title?: string;
    workflow?: string;
    requestKey?: string;
    executionMode?: ExecutionMode;
    projectPath?: string;
  } = {},
) {
  return t.store.reserveRun(
    {
      projectPath: over.projectPath ?? t.projectDir,
      workflow: over.workflow ?? 'build',
      title: over.title ?? 'Build the thing',
      input: { n: 1 },
      requestKey: over.requestKey ?? null,
      executionMode: over.executionMode ?? 'interactive',
    },
    RUNNER_ACTOR,
  );
}

/** Reserves and claims a run; returns the claim. */
export function reserveAndClaim(t: TempStore, leaseMs = 30_000, owner = runnerOwner()): Claim {
  const run = reserve(t);
  return t.store.claimRun(run.id, { ...owner, leaseMs }).claim;
}
