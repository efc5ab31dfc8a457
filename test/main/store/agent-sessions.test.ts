/**
 * Coding-agent sessions in the store (docs/AGENTS.md#sessions-as-runs): one run per session, held under the
 * agent's process identity; a second live process is refused; a gone agent's run is recorded as died, or
 * as ended for Codex waiting for its next prompt; a tool call's question is withdrawn on its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openAgentSessionStore, type AgentSessionStore } from '../../../main/store/agent-session-store';
import {
  AGENT_LEASE_MS,
  AGENT_RENEWED_WITHIN_MS,
  WAITING_FOR_PROMPT,
  type AgentSessionInput,
} from '../../../main/store/agent-sessions';
import { createLivenessCheck, type MachineIdentity } from '../../../main/store/liveness';
import { openStore, type OwnerInfo, type RunStore } from '../../../main/store';
import { migrate } from '../../../main/store/open-store';
import { MIGRATIONS } from '../../../main/store/migrations';
import { migration0011 } from '../../../main/store/migrations/0011-host-effects-agent-runs';
import Database from 'better-sqlite3';
import { initialSweeperState, sweep, type SweeperDeps } from '../../../main/services/sweeper';
import { DEFAULT_SETTINGS } from '../../../shared/views';

const HERE: MachineIdentity = { hostname: 'box', bootId: 'boot-1', pidNs: 'pid:[1]' };
let alive: Set<number>;
const liveness = () =>
  createLivenessCheck(HERE, {
    processAlive: (pid) => alive.has(pid),
    groupAlive: () => false,
  });

let dir: string;
let agents: AgentSessionStore;
let host: RunStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'runwarden-agent-sessions-'));
  alive = new Set([100, 200]);
  agents = openAgentSessionStore(join(dir, 'store.sqlite'), { liveness: liveness() });
  host = openStore(join(dir, 'store.sqlite'), { liveness: liveness() });
});
afterEach(() => {
  agents.close();
  host.close();
  rmSync(dir, { recursive: true, force: true });
});

function owner(pid: number, agent = 'claude-code'): OwnerInfo {
  return {
    ownerType: 'runner',
    ownerId: `${agent}:box:${pid}`,
    pid,
    hostname: HERE.hostname,
    startId: '1',
    bootId: HERE.bootId,
    pidNs: HERE.pidNs,
  };
}

function session(pid: number, agent: AgentSessionInput['agent'] = 'claude-code'): AgentSessionInput {
  return {
    agent,
    sessionId: 's-1',
    projectPath: dir,
    title: 'Claude Code in project',
    owner: owner(pid, agent),
  };
}

const QUESTION = {
  kind: 'decision' as const,
  title: 'Claude Code wants to run: ls',
  prompt: '',
  choices: ['allow', 'deny'],
};

describe('agent sessions', () => {
  it('is one run per session, claimed under the agent process, renewed by each hook call', () => {
    const first = agents.agentSession(session(100), { kind: 'activity', detail: 'Working' });
    expect(first.created).toBe(true);
    const again = agents.agentSession(session(100), { kind: 'touch' });
    expect(again.created).toBe(false);
    expect(again.claim.runId).toBe(first.claim.runId);
    const snapshot = host.getSnapshot(first.claim.runId);
    expect(snapshot.run).toMatchObject({
      title: 'Claude Code in project',
      workflow: 'claude-code',
      status: 'running',
    });
    expect(snapshot.lease).toMatchObject({
      ownerPid: 100,
      ownerStartId: '1',
      generation: first.claim.generation,
    });
  });

  it('refuses a second live process on the same session (LIVE_OWNER), changing nothing', () => {
    const first = agents.agentSession(session(100), { kind: 'touch' });
    const before = host.getRun(first.claim.runId).revision;
    expect(() => agents.agentSession(session(200), { kind: 'touch' })).toThrow(
      expect.objectContaining({ code: 'LIVE_OWNER' }),
    );
    expect(host.getRun(first.claim.runId).revision).toBe(before);
  });

  it('records a gone agent as died: question withdrawn as the asker’s, run failed', () => {
    const { claim } = agents.askAgentQuestion(session(100), QUESTION);
    expect(host.getRun(claim.runId).status).toBe('waiting');
    expect(host.endGoneAgentSessions(10)).toBe(0);
    alive.delete(100);
    expect(host.endGoneAgentSessions(10)).toBe(1);
    const run = host.getSnapshot(claim.runId);
    expect(run.run.status).toBe('failed');
    expect(run.run.error).toBe('Claude Code died: its process is gone and the session never ended.');
    expect(run.interactions[0]).toMatchObject({ status: 'cancelled', provenance: 'asker_gone' });
    // The session comes back under a new process: a new run.
    const next = agents.agentSession(session(200), { kind: 'touch' });
    expect(next.created).toBe(true);
    expect(next.claim.runId).not.toBe(claim.runId);
  });

  it("a kill between the sweeper's two looks never records a lost runner: the session goes straight to died", () => {
    const { claim } = agents.askAgentQuestion(session(100), QUESTION);
    // The sweeper's look at this machine's live leases sees pid 100 gone, while the store's own look at the
    // agent sessions, a moment earlier in the same tick, still saw it alive.
    const later = createLivenessCheck(HERE, { processAlive: (pid) => pid !== 100, groupAlive: () => false });
    const deps: SweeperDeps = {
      store: host,
      settings: () => DEFAULT_SETTINGS,
      host: { ownerId: 'app:box:1', pid: 1, hostname: HERE.hostname, startId: null },
      liveness: later,
    };
    const state = initialSweeperState(host);
    expect(sweep(deps, state)).toMatchObject({ agentSessionsDied: 0, runnersLost: 0 });
    alive.delete(100);
    expect(sweep(deps, state)).toMatchObject({ agentSessionsDied: 1, runnersLost: 0 });
    const detail = host.getRunDetail(claim.runId, { eventsLimit: 100 });
    expect(detail.snapshot.run.error).toBe(
      'Claude Code died: its process is gone and the session never ended.',
    );
    expect(detail.events.map((e) => e.type)).not.toContain('run.runner_lost');
  });

  it('refuses an answer once the session’s agent is gone, before any sweep, and withdraws the question', () => {
    // The question's own asker (the hook) still waits, as Codex's daemon keeps it running: only the agent is gone.
    const { claim, interaction } = agents.askAgentQuestion(session(100, 'codex'), {
      ...QUESTION,
      asker: { pid: 200, startId: '1', hostname: HERE.hostname, bootId: HERE.bootId, pidNs: HERE.pidNs },
    });
    alive.delete(100);
    const answer = () =>
      host.answerInteraction(interaction.id, {
        interactionRevision: interaction.revision,
        idempotencyKey: 'a1',
        payload: 'allow',
        actor: { type: 'human', id: 'person', surface: 'app' },
      });
    expect(answer).toThrow(/agent's session it belongs to is gone/);
    expect(host.getInteraction(interaction.id)).toMatchObject({
      status: 'cancelled',
      provenance: 'asker_gone',
    });
    expect(host.getRun(claim.runId).status).not.toBe('completed');
  });

  it('ends a Codex session whose process is gone while it waits for the next prompt', () => {
    const { claim } = agents.agentSession(session(100, 'codex'), {
      kind: 'activity',
      detail: WAITING_FOR_PROMPT,
    });
    alive.delete(100);
    expect(host.endGoneAgentSessions(10)).toBe(1);
    expect(host.getRun(claim.runId)).toMatchObject({
      status: 'completed',
      output: { ended: 'the agent exited' },
    });
  });

  it('withdraws only the question of the tool call that ran; Stop withdraws the rest', () => {
    const a = agents.askAgentQuestion(session(100), QUESTION);
    const b = agents.askAgentQuestion(session(100), { ...QUESTION, title: 'Claude Code wants to run: pwd' });
    const after = agents.agentSession(session(100), {
      kind: 'activity',
      detail: 'Working',
      withdraw: 'asker_interrupted',
      onlyTitle: QUESTION.title,
    });
    expect(after.withdrawn).toEqual([a.interaction.id]);
    expect(host.getInteraction(b.interaction.id).status).toBe('pending');
    const stop = agents.agentSession(session(100), {
      kind: 'activity',
      detail: WAITING_FOR_PROMPT,
      withdraw: 'asker_interrupted',
    });
    expect(stop.withdrawn).toEqual([b.interaction.id]);
    expect(host.getRun(a.claim.runId)).toMatchObject({ status: 'running', statusDetail: WAITING_FOR_PROMPT });
  });

  it('SessionEnd completes the run', () => {
    const { claim } = agents.agentSession(session(100), { kind: 'end', reason: 'prompt_input_exit' });
    expect(host.getRun(claim.runId)).toMatchObject({
      status: 'completed',
      output: { ended: 'prompt_input_exit' },
    });
  });

  it('offers a session run no retry or cancel request, and refuses a retry with a reason', () => {
    const asked = agents.askAgentQuestion(session(100), QUESTION);
    const runId = asked.claim.runId;
    expect(host.getRun(runId).originSession).toBe('agent:claude-code');
    // Waiting on a person: answer only (a runner's run would also offer a cancel request).
    expect(host.getRunDetail(runId, { eventsLimit: 1 }).display.actions).toEqual(['answer']);
    agents.agentSession(session(100), { kind: 'end', reason: 'prompt_input_exit' });
    const ended = host.getRunDetail(runId, { eventsLimit: 1 });
    expect(ended.display).toMatchObject({ status: 'completed', actions: [] });
    const revision = host.getRun(runId).revision;
    expect(() => host.retryRun(runId, { actor: { type: 'human', id: 'me', surface: 'app' } })).toThrow(
      expect.objectContaining({ code: 'CONFLICT', message: expect.stringMatching(/claude-code session/) }),
    );
    expect(host.getRun(runId).revision).toBe(revision);
  });

  it('migration 0011 marks the session runs recorded before it', () => {
    const { claim } = agents.agentSession(session(100), { kind: 'activity', detail: 'Working' });
    const plain = host.reserveRun(
      { projectPath: dir, workflow: 'claude-code', title: 'not a session' },
      {
        type: 'human',
        id: 'me',
        surface: 'cli',
      },
    );
    const index = MIGRATIONS.indexOf(migration0011);
    const db = new Database(join(dir, 'store.sqlite'));
    try {
      db.exec(`UPDATE runs SET origin_session = NULL; DROP INDEX effects_applying_on_host;
        PRAGMA user_version = ${MIGRATIONS[index - 1]?.version};`);
      expect(migrate(db, MIGRATIONS.slice(0, index + 1))).toBe(migration0011.version);
    } finally {
      db.close();
    }
    expect(host.getRun(claim.runId).originSession).toBe('agent:claude-code');
    expect(host.getRun(plain.id).originSession).toBeNull();
  });

  it('writes nothing for a call that changes nothing, renews without an fsync, and the rest durably', () => {
    // A clock of the test's: the lease is renewed again once AGENT_RENEWED_WITHIN_MS have passed.
    let now = Date.now();
    agents.close();
    agents = openAgentSessionStore(join(dir, 'store.sqlite'), { liveness: liveness(), clock: () => now });
    const pragmas: string[] = [];
    const writes: string[] = [];
    const db = agents.db;
    const prepare = db.prepare.bind(db);
    // Statements are prepared once and kept: each run of a synchronous pragma, and each write, is recorded.
    Object.defineProperty(db, 'prepare', {
      value: (source: string) => {
        const statement = prepare(source);
        const run = statement.run.bind(statement);
        return Object.assign(statement, {
          run: (...args: unknown[]) => {
            if (source.startsWith('PRAGMA synchronous')) pragmas.push(source);
            else writes.push(source);
            return run(...args);
          },
        });
      },
      configurable: true,
      writable: true,
    });
    const renewals = () => pragmas.filter((p) => p === 'PRAGMA synchronous = NORMAL').length;
    const first = agents.agentSession(session(100), { kind: 'activity', detail: 'Working' });
    expect(first.created).toBe(true);
    const afterCreate = renewals();
    // A tool call while it works, soon after: nothing to record, nothing written, not even the lease.
    now += 1000;
    const written = writes.length;
    const unchanged = agents.agentSession(session(100), { kind: 'activity', detail: 'Working' });
    expect(unchanged).toMatchObject({ created: false, withdrawn: [], claim: { runId: first.claim.runId } });
    expect(unchanged.claim.expiresAt).toBe(first.claim.expiresAt);
    expect([renewals(), writes.length]).toEqual([afterCreate, written]);
    // Another process's look at it: the lease is the agent's, as it was.
    expect(host.getSnapshot(first.claim.runId).lease?.expiresAt).toBe(first.claim.expiresAt);
    // Once AGENT_RENEWED_WITHIN_MS have passed: the lease only, as a renewal.
    now += AGENT_RENEWED_WITHIN_MS;
    const again = agents.agentSession(session(100), { kind: 'activity', detail: 'Working' });
    expect(renewals()).toBe(afterCreate + 1);
    expect(again).toMatchObject({ created: false, withdrawn: [], claim: { runId: first.claim.runId } });
    expect(again.claim.expiresAt).toBe(now + AGENT_LEASE_MS);
    // A new detail is a transition: it falls back to the durable path, and shows.
    const before = pragmas.length;
    agents.agentSession(session(100), { kind: 'activity', detail: WAITING_FOR_PROMPT });
    expect(host.getRun(first.claim.runId).statusDetail).toBe(WAITING_FOR_PROMPT);
    // The renewal attempt was made and found more to record; the step itself committed durably.
    expect(pragmas.slice(before)).toEqual(['PRAGMA synchronous = NORMAL', 'PRAGMA synchronous = FULL']);
    const durable = host.getRunDetail(first.claim.runId, { eventsLimit: 5 }).events.map((e) => e.type);
    expect(durable[0]).toBe('run.progress');
    // With a question open, a call goes the durable way too (it may have a question to withdraw).
    agents.askAgentQuestion(session(100), QUESTION);
    const n = renewals();
    const withdrawn = agents.agentSession(session(100), {
      kind: 'activity',
      detail: 'Working',
      withdraw: 'asker_interrupted',
      onlyTitle: QUESTION.title,
    });
    expect(withdrawn.withdrawn).toHaveLength(1);
    expect(renewals()).toBe(n + 1);
  });
});
