/**
 * Migration 0016 from a version-15 store: `agent_sessions` takes Qwen Code, Gemini CLI and OpenCode sessions;
 * the sessions recorded before keep their run and claim, and an unknown agent is still refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { openAgentSessionStore } from '../../../main/store/agent-session-store';
import type { AgentSessionInput } from '../../../main/store/agent-sessions';
import { migrate } from '../../../main/store/open-store';
import { MIGRATIONS } from '../../../main/store/migrations';
import { migration0016 } from '../../../main/store/migrations/0016-more-agents';
import { makeTempDir } from '../../helpers/temp-store';
import { schemaBackTo } from './schema-back';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function session(agent: AgentSessionInput['agent'], project: string): AgentSessionInput {
  return {
    agent,
    sessionId: `s-${agent}`,
    projectPath: project,
    title: `${agent} in project`,
    owner: {
      ownerType: 'runner',
      ownerId: `${agent}:box:${process.pid}`,
      pid: process.pid,
      hostname: 'box',
      startId: null,
      bootId: null,
      pidNs: null,
    },
  };
}

it('0016 from version 15: earlier sessions kept; Qwen Code, Gemini CLI and OpenCode sessions recorded', () => {
  dir = makeTempDir();
  const file = path.join(dir, 's.sqlite');
  const before = openAgentSessionStore(file);
  const claude = before.agentSession(session('claude-code', dir), { kind: 'activity', detail: 'Working' });
  before.close();
  const db = new Database(file);
  schemaBackTo(db, migration0016.version - 1);
  expect(() =>
    db.prepare(`INSERT INTO agent_sessions VALUES ('gemini', 'x', ?, 0, 't', 0)`).run(claude.run.id),
  ).toThrow(/CHECK constraint failed/);
  expect(migrate(db, MIGRATIONS.slice(0, migration0016.version))).toBe(migration0016.version);
  expect(db.prepare(`SELECT agent, session_id, run_id FROM agent_sessions`).all()).toEqual([
    { agent: 'claude-code', session_id: 's-claude-code', run_id: claude.run.id },
  ]);
  expect(() =>
    db.prepare(`INSERT INTO agent_sessions VALUES ('copilot', 'x', 'run_x', 0, 't', 0)`).run(),
  ).toThrow(/CHECK constraint failed/);
  db.close();

  const store = openAgentSessionStore(file);
  const again = store.agentSession(session('claude-code', dir), { kind: 'touch' });
  expect(again.run.id).toBe(claude.run.id);
  for (const agent of ['qwen-code', 'gemini', 'opencode'] as const) {
    const made = store.agentSession(session(agent, dir), { kind: 'activity', detail: 'Working' });
    expect(made.created).toBe(true);
    expect(made.run.workflow).toBe(agent);
  }
  store.close();
});
