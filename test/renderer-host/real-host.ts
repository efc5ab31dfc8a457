/**
 * The renderer's API object over a real host: `createAppHost` on a temporary store file, every method
 * going through the host's dispatcher (request validation, handlers, the store) exactly as the window's
 * calls do, and pushes delivered to the `on` listeners. A second connection seeds the store the way a
 * runner would. Renderer state tests that test behaviour run against this, not a re-implementation.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CHANNEL_METHODS, type Channel, type PushEvent } from '../../shared/channel-names';
import type { Pushes, RunwardenApi } from '../../shared/contract';
import type { Actor } from '../../shared/domain';
import { createAppHost } from '../../main/services/app-host';
import type { AppHost } from '../../main/services/host-types';
import { openStore, type RunStore } from '../../main/store';

export interface RealHost {
  api: RunwardenApi;
  host: AppHost;
  /** Another connection to the same file, as a runner process would hold. */
  store: RunStore;
  projectDir: string;
  now(): number;
  advance(ms: number): void;
  cleanup(): void;
}

export const RUNNER: Actor = { type: 'runner', id: 'runner-1', surface: 'sdk' };
const SWEEPER: Actor = { type: 'host', id: 'sweeper', surface: 'sweeper' };

export function createRealHost(start = Date.UTC(2025, 0, 1)): RealHost {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runwarden-host-'));
  const storePath = path.join(dir, 'state.sqlite');
  const projectDir = path.join(dir, 'project');
  fs.mkdirSync(projectDir);
  let now = start;
  const clock = () => now;
  const listeners = new Map<PushEvent, Set<(payload: never) => void>>();
  const host = createAppHost({
    storePath,
    surface: 'app',
    actorId: 'dev',
    clock,
    notifier: { show: () => {} },
    push: (event, payload) => {
      for (const listener of listeners.get(event) ?? []) (listener as (p: typeof payload) => void)(payload);
    },
  });
  const api: Record<string, unknown> = {};
  for (const [channel, method] of Object.entries(CHANNEL_METHODS) as Array<[Channel, string]>) {
    api[method] = (input: unknown) => host.dispatch(channel, input);
  }
  api.on = <E extends PushEvent>(event: E, listener: (payload: Pushes[E]) => void) => {
    const set = listeners.get(event) ?? new Set();
    set.add(listener as (payload: never) => void);
    listeners.set(event, set);
    return () => set.delete(listener as (payload: never) => void);
  };
  const store = openStore(storePath, { clock });
  return {
    api: api as RunwardenApi,
    host,
    store,
    projectDir,
    now: clock,
    advance(ms) {
      now += ms;
    },
    cleanup() {
      store.close();
      host.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Reserves `count` runs and claims each for a live runner (the Running view), one clock tick apart. */
export function seedRunningRuns(h: RealHost, count: number, title = 'run'): string[] {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const run = h.store.reserveRun(
      { projectPath: h.projectDir, workflow: 'wf', title: `${title} ${i}` },
      RUNNER,
    );
    const { claim } = h.store.claimRun(run.id, {
      ownerType: 'runner',
      ownerId: 'runner-1',
      pid: 1,
      hostname: 'host',
      startId: null,
      leaseMs: 3_600_000,
    });
    h.store.markRunning(claim);
    ids.push(run.id);
    h.advance(1);
  }
  return ids;
}

const OWNER = { ownerType: 'runner', ownerId: 'runner-1', pid: 1, hostname: 'host', startId: null } as const;

/**
 * A run whose runner's lease expired (the Stale view), already noticed as lost the way the sweeper records
 * it — so the host's own sweep (which a write request wakes) finds nothing new to write on it.
 */
export function seedStaleRun(h: RealHost, title = 'stale'): string {
  const run = h.store.reserveRun({ projectPath: h.projectDir, workflow: 'wf', title }, RUNNER);
  const { claim } = h.store.claimRun(run.id, { ...OWNER, leaseMs: 1_000 });
  h.store.markRunning(claim);
  h.advance(1_001);
  h.store.markRunnerLost(run.id, claim.generation, 'lease expired', SWEEPER);
  return run.id;
}

/** A run its runner completed. */
export function seedCompletedRun(h: RealHost, title = 'done'): string {
  const run = h.store.reserveRun({ projectPath: h.projectDir, workflow: 'wf', title }, RUNNER);
  const { claim } = h.store.claimRun(run.id, { ...OWNER, leaseMs: 60_000 });
  h.store.completeRun(claim);
  h.advance(1);
  return run.id;
}
