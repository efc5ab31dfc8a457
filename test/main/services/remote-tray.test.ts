/**
 * Other machines in the tray and the desktop notifications (docs/REMOTES.md#tray-and-notifications): the real
 * app host (main/services/app-host.ts) attached over a real sshd on 127.0.0.1 to this machine with another
 * store. The tray's read carries the remote's questions and runs named box:…; a tray answer takes the
 * shell's path (main/electron/quick-answers.ts through the host's dispatch) and is recorded on the remote
 * as the person via box; what waits there is announced once. A third machine (other, over its own sshd)
 * is in the same tray, answered the same way, and its cable pulled takes it out of the tray within 10 s.
 * The notices for questions asked later are checked on the host's own reads (remoteQuestionNotices).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RemoteMachineView } from '../../../shared/remotes';
import { createQuickAnswers } from '../../../main/electron/quick-answers';
import { createAppHost } from '../../../main/services/app-host';
import type { AppHost, DesktopNotice, ShellAttention } from '../../../main/services/host-types';
import { remoteQuestionNotices } from '../../../main/services/remote/remote-attention';
import { killQuietly, runCli, runJson, tempDir, waitFor, type TempDir } from '../../helpers/cli';
import { testCliBin } from '../../helpers/paths';
import { sshdAvailable, startSshdPair, type SshFixture } from '../../helpers/sshd';

const canRun = sshdAvailable() && process.getuid?.() === 0;
if (!canRun && process.env.CI === 'true')
  throw new Error('CI needs openssh-server and root for the remote tests');

let dir: TempDir;
let sshd: SshFixture;
let otherSshd: SshFixture;
let remoteStore: string;
let otherStore: string;
let runnerPids: number[] = [];
let host: AppHost | null = null;
const path = process.env.PATH;

describe.runIf(canRun)('remote questions in the tray, over a real sshd', () => {
  beforeAll(async () => {
    dir = tempDir('runwarden-remote-tray-');
    [sshd, otherSshd] = await startSshdPair(dir.path);
    remoteStore = join(dir.path, 'remote.sqlite');
    otherStore = join(dir.path, 'other.sqlite');
    // A third machine, over its own sshd: its questions are parked (no live runners).
    const otherDemo = await runJson(['demo', '--no-live', '--dir', join(dir.path, 'other-projects')], {
      store: otherStore,
    });
    if (!otherDemo.body.ok) throw new Error(JSON.stringify(otherDemo.body));
    const otherCommand = `env RUNWARDEN_STORE=${otherStore} ${process.execPath} ${testCliBin()}`;
    const addedOther = await runCli(
      ['remote', 'add', 'other', otherSshd.alias, '--runwarden', otherCommand],
      {
        store: dir.store,
        env: sshd.env,
      },
    );
    if (addedOther.code !== 0) throw new Error(`remote add failed: ${addedOther.stderr}`);
    const demo = await runJson<{ runnerPids: number[] }>(
      ['demo', '--dir', join(dir.path, 'projects'), '--live-minutes', '5'],
      { store: remoteStore },
    );
    if (!demo.body.ok) throw new Error(JSON.stringify(demo.body));
    runnerPids = demo.body.value.runnerPids;
    const command = `env RUNWARDEN_STORE=${remoteStore} ${process.execPath} ${testCliBin()}`;
    const added = await runCli(['remote', 'add', 'box', sshd.alias, '--runwarden', command], {
      store: dir.store,
      env: sshd.env,
    });
    if (added.code !== 0) throw new Error(`remote add failed: ${added.stderr}`);
    // The host starts the system's ssh from PATH: the fixture's wrapper, with its own config.
    process.env.PATH = sshd.env.PATH;
  });
  afterAll(() => {
    host?.dispose();
    process.env.PATH = path;
    for (const pid of runnerPids) killQuietly(pid, 'SIGKILL');
    sshd?.stop();
    otherSshd?.stop();
    dir?.remove();
  });

  it('shows box and other in one tray, answers from there, recorded there; a pulled cable leaves it', async () => {
    let attention: ShellAttention | null = null;
    const notices: DesktopNotice[] = [];
    const started = createAppHost({
      storePath: dir.store,
      surface: 'app',
      actorId: 'ada',
      notifier: { show: (n) => notices.push(n) },
      push: () => {},
      attention: { items: 10, onAttention: (a) => (attention = a) },
    });
    host = started;
    started.start();
    const question = await waitFor(
      'box question in the tray',
      () => attention?.questions.find((q) => q.title === 'Deploy billing v2.4.1 to production?'),
      30_000,
    );
    expect(question.id).toMatch(/^box:int_/);
    expect(question.runId).toMatch(/^box:run_/);
    const run = attention!.summary.items.find((item) => item.run.id === question.runId);
    expect(run?.machine).toBe('box');
    expect(attention!.summary.needsYou).toBeGreaterThanOrEqual(attention!.summary.items.length);
    // What waited there when the host started: one notice, not one per question.
    const catchUp = await waitFor('the catch-up notice', () =>
      notices.find((n) => n.title.startsWith('box:')),
    );
    expect(catchUp.title).toMatch(/^box: \d+ questions? waits? for you$/);
    expect(notices.filter((n) => n.title.startsWith('box:'))).toHaveLength(1);

    const failures: string[] = [];
    const answers = createQuickAnswers({
      dispatch: (channel, input) => started.dispatch(channel, input),
      changed: () => {},
      failed: (_a, error) => failures.push(error.message),
    });
    const ok = await answers.answer({
      runId: question.runId,
      interactionId: question.id,
      revision: question.revision,
      choice: 'yes',
      index: 0,
    });
    expect(failures).toEqual([]);
    expect(ok).toBe(true);
    await waitFor('the answered question leaves the tray', () =>
      attention?.questions.every((q) => q.id !== question.id),
    );
    const shown = await runJson<{
      events: Array<{ type: string; actorId: string | null; surface: string | null }>;
    }>(['show', question.runId.slice('box:'.length)], { store: remoteStore });
    if (!shown.body.ok) throw new Error(JSON.stringify(shown.body));
    const answered = shown.body.value.events.find((e) => e.type === 'interaction.answered');
    expect(answered?.actorId).toMatch(/^ada@.+ via box$/);
    expect(answered?.surface).toBe('app');

    // One tray for three machines: other's questions are in the same read, answered the same way.
    const fromOther = await waitFor(
      "other's question in the tray",
      () => attention?.questions.find((q) => q.id.startsWith('other:') && q.choices !== null),
      30_000,
    );
    expect(attention!.summary.items.some((item) => item.machine === 'other')).toBe(true);
    expect(
      await answers.answer({
        runId: fromOther.runId,
        interactionId: fromOther.id,
        revision: fromOther.revision,
        choice: fromOther.choices?.[0] ?? 'yes',
        index: 0,
      }),
    ).toBe(true);
    const onOther = await runJson<{ events: Array<{ type: string; actorId: string | null }> }>(
      ['show', fromOther.runId.slice('other:'.length)],
      { store: otherStore },
    );
    if (!onOther.body.ok) throw new Error(JSON.stringify(onOther.body));
    const otherAnswer = onOther.body.value.events.find((e) => e.type === 'interaction.answered');
    expect(otherAnswer?.actorId).toMatch(/^ada@.+ via other$/);

    // A click on other's desktop notice marks that run's notices read on other.
    const marked = await started.markRunRead(fromOther.runId);
    expect(marked).toMatchObject({ ok: true, value: { count: expect.any(Number) } });

    // other's cable pulled: within 10 s the tray has nothing of other's, and box's still.
    const pulledAt = Date.now();
    otherSshd.kill();
    await waitFor(
      "other's rows out of the tray",
      () =>
        attention !== null &&
        attention.summary.items.every((item) => item.machine !== 'other') &&
        attention.questions.every((q) => !q.id.startsWith('other:')),
      10_000,
    );
    expect(Date.now() - pulledAt).toBeLessThan(10_000);
    expect(attention!.summary.items.some((item) => item.machine === 'box')).toBe(true);
  });
});

describe('notices for the questions of other machines', () => {
  const view = (questions: Array<{ id: string; title: string }>, state = 'connected'): RemoteMachineView =>
    ({
      name: 'box',
      state,
      readAt: 1,
      needsYou: [{ run: { id: 'run_1', title: 'Deploy' } }],
      questions: questions.map((q) => ({ ...q, runId: 'run_1', prompt: 'p' })),
    }) as unknown as RemoteMachineView;

  it('announces what waits once, then each new question with its machine, never an unreachable one', () => {
    const seen = new Map<string, Set<string>>();
    expect(remoteQuestionNotices([view([{ id: 'int_1', title: 'A?' }])], seen)).toMatchObject([
      { title: 'box: 1 question waits for you', runId: 'box:run_1' },
    ]);
    expect(remoteQuestionNotices([view([{ id: 'int_1', title: 'A?' }])], seen)).toEqual([]);
    const both = [
      { id: 'int_1', title: 'A?' },
      { id: 'int_2', title: 'B?' },
    ];
    expect(remoteQuestionNotices([view(both)], seen)).toEqual([
      {
        title: 'Needs an answer: B?',
        body: 'Deploy — on box',
        level: 'attention',
        runId: 'box:run_1',
        interactionId: 'box:int_2',
      },
    ]);
    expect(remoteQuestionNotices([view([{ id: 'int_3', title: 'C?' }], 'unreachable')], seen)).toEqual([]);
  });
});
