/**
 * `runwarden demo`: fills a store with a realistic spread over several projects so a new user sees every
 * display status at once (docs/ARCHITECTURE.md#display-status-and-views): live runners (real `runwarden exec` processes), stale runs, questions,
 * parked runs (source changed, runner exited), an ambiguous effect, paused, queued,
 * failed, timed out, completed, cancelled, and notifications.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Actor, OwnerType } from '../../../shared/domain';
import { DISPLAY_STATUSES, type DisplayStatus } from '../../../shared/display-status';
import { runnerActor, runnerOwner } from '../../runner/owner-info';
import { makeFolders, openStore, type Claim, type OwnerInfo, type RunStore } from '../../store';
import { COMMON_HELP, JSON_HELP, storePathOf, type CliContext, UsageError } from '../command';
import { defineCommand, reply } from '../define-command';
import { parseIntegerFlag, RANGES } from '../limits';
import { humanActor } from '../human-actor';
import { runningCliLaunch } from '../../platform/stable-cli-path';

const PROJECTS = ['acme-api', 'billing-service', 'data-pipeline', 'mobile-app', 'infra'] as const;
type ProjectName = (typeof PROJECTS)[number];

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export interface DemoResult {
  storePath: string;
  dir: string;
  projects: Record<ProjectName, string>;
  runs: Array<{ id: string; expected: DisplayStatus; title: string; project: ProjectName; live: boolean }>;
  runnerPids: number[];
  pidFile: string | null;
  /** How long the live runners keep running after the demo returns (0 with --no-live). */
  liveMinutes: number;
}

export const demoCommand = defineCommand({
  name: 'demo',
  summary: 'fill a store with a realistic spread of runs in every state',
  help: `Usage: runwarden demo [--dir DIR] [--no-live] [--live-minutes N] [--json]

Creates project folders (under --dir, default a new temp folder) and fills the store with runs in
every state: running (live "runwarden exec" processes that heartbeat), a live run waiting for an
answer, a run whose answer its runner has not read yet (waiting), stale runs (their runner stopped
heartbeating), questions, parked runs (workflow source changed, runner exited), an ambiguous side
effect, paused, queued (one unattended), failed, timed out, completed and cancelled runs, and
notifications.

The live runners run in the background for --live-minutes (default 30). Stop them sooner with
the "kill" command the demo prints (their runs then end cancelled). Answer the waiting question
with "runwarden answer" and watch that run complete.
Use --store or RUNWARDEN_STORE to keep the demo away from your real store.

Options:
  --dir DIR          where to create the demo project folders
  --no-live          no background processes; "running" runs are simulated with a long lease
  --live-minutes N   how long the live runners keep running (default 30)
${JSON_HELP}
${COMMON_HELP}`,
  options: { dir: { type: 'string' }, 'no-live': { type: 'boolean' }, 'live-minutes': { type: 'string' } },
  positionals: [],
  async run({ ctx, values }) {
    const liveMinutes = parseIntegerFlag(values['live-minutes'], 'live-minutes', RANGES.liveMinutes) ?? 30;
    const storePath = storePathOf(ctx, values.store);
    const dir =
      values.dir !== undefined
        ? resolve(ctx.cwd, values.dir)
        : mkdtempSync(join(tmpdir(), 'runwarden-demo-'));
    try {
      makeFolders(dir, 0o777);
    } catch (error) {
      throw new UsageError(`--dir: cannot create ${dir}: ${(error as Error).message}`);
    }
    const projects = {} as Record<ProjectName, string>;
    for (const name of PROJECTS) {
      const folder = join(dir, name);
      makeFolders(folder, 0o777);
      projects[name] = realpathSync(folder);
    }

    // The demo writes history "in the past" through a skewed store clock; the store still takes `now`
    // from its clock inside every transaction.
    let skewMs = 0;
    const store = openStore(storePath, { clock: () => Date.now() - skewMs });
    ctx.defer(() => store.close());
    const at = <T>(agoMs: number, fn: () => T): T => {
      skewMs = agoMs;
      try {
        return fn();
      } finally {
        skewMs = 0;
      }
    };
    const result: DemoResult = {
      storePath,
      dir,
      projects,
      runs: [],
      runnerPids: [],
      pidFile: null,
      liveMinutes: values['no-live'] === true ? 0 : liveMinutes,
    };
    const seed = new DemoSeeder(store, projects, result, humanActor(), at);

    seed.scenarios(values['no-live'] === true);
    if (values['no-live'] !== true) {
      await startLiveRunners(ctx, storePath, projects, liveMinutes, result);
      result.pidFile = join(dir, 'demo-runners.pids');
      writeFileSync(result.pidFile, `${result.runnerPids.join('\n')}\n`);
    }
    return reply(result, () => describe(result));
  },
});

class DemoSeeder {
  readonly simulatedOwner: OwnerInfo;
  readonly runnerActor: Actor;

  constructor(
    readonly store: RunStore,
    readonly projects: Record<ProjectName, string>,
    readonly result: DemoResult,
    readonly person: Actor,
    /** Runs `fn` with the store's clock set `agoMs` in the past. */
    readonly at: <T>(agoMs: number, fn: () => T) => T,
  ) {
    // A simulated runner on a host the sweeper cannot probe, so its lease only ends by expiring.
    this.simulatedOwner = { ...runnerOwner('demo'), hostname: `${hostname()}-simulated` };
    this.runnerActor = runnerActor(this.simulatedOwner, 'sdk');
  }

  reserve(project: ProjectName, workflow: string, title: string, expected: DisplayStatus, input?: unknown) {
    const run = this.store.reserveRun(
      {
        projectPath: this.projects[project],
        workflow,
        title,
        input: input ?? null,
        executionMode: 'headless',
        command: { argv: ['npm', 'run', workflow], cwd: this.projects[project] },
      },
      this.runnerActor,
    );
    this.result.runs.push({ id: run.id, expected, title, project, live: false });
    return run;
  }

  claim(runId: string, leaseMs: number, ownerType: OwnerType = 'runner'): Claim {
    const { claim } = this.store.claimRun(runId, { ...this.simulatedOwner, ownerType, leaseMs });
    this.store.markRunning(claim);
    return claim;
  }

  /** Steps that completed, for a realistic attempt history. */
  steps(claim: Claim, names: string[]): void {
    for (const name of names) {
      const attempt = this.store.startAttempt(claim, name);
      this.store.finishAttempt(claim, attempt.id, 'completed');
    }
  }

  /** Every scenario in turn; the order is the order of the runs in the result. */
  scenarios(noLive: boolean): void {
    this.completedRuns();
    const failed = this.failedRun();
    this.timedOutRun();
    this.cancelledRun();
    this.staleRuns();
    this.orphanedRun();
    this.parkedRuns();
    this.ambiguousRun();
    this.pausedRun();
    this.queuedRuns(failed);
    this.unattendedQuestion();
    this.waitingRun();
    if (noLive) this.simulatedLiveRuns();
    this.store.notify(
      null,
      { level: 'info', title: 'Runwarden demo loaded', body: 'Every run state is on screen.' },
      this.person,
    );
  }

  // Completed, hours ago, with an applied effect and a success notification.
  private completedRuns(): void {
    const { store, at } = this;
    at(6 * HOUR, () => {
      const run = this.reserve('acme-api', 'release', 'Release v2.3.0', 'completed', { version: '2.3.0' });
      const claim = this.claim(run.id, 5 * MINUTE);
      this.steps(claim, ['build', 'test']);
      const attempt = store.startAttempt(claim, 'publish');
      const effect = store.reserveEffect(claim, {
        type: 'npm.publish',
        idempotencyKey: 'acme-api@2.3.0',
        summary: 'Publish acme-api@2.3.0 to the registry',
        attemptId: attempt.id,
      });
      store.beginEffect(claim, effect.id);
      store.settleEffect(claim, effect.id, 'applied');
      store.finishAttempt(claim, attempt.id, 'completed');
      store.completeRun(claim, { published: 'acme-api@2.3.0' });
      store.notify(
        run.id,
        { level: 'success', title: 'Release v2.3.0 completed', body: 'acme-api@2.3.0 is live.' },
        this.runnerActor,
      );
    });
    at(3 * HOUR, () => {
      const run = this.reserve('data-pipeline', 'ingest', 'Ingest clickstream 2026-11-29', 'completed');
      const claim = this.claim(run.id, 5 * MINUTE);
      this.steps(claim, ['extract', 'transform', 'load']);
      store.completeRun(claim, { rows: 1_284_211 });
    });
  }

  // Failed, with a failed attempt and a failure notification; then a retry that waits in the queue.
  private failedRun(): ReturnType<RunStore['reserveRun']> {
    const { store, at } = this;
    return at(2 * HOUR, () => {
      const run = this.reserve('mobile-app', 'ci', 'Build iOS 5.12 (beta)', 'failed');
      const claim = this.claim(run.id, 5 * MINUTE);
      this.steps(claim, ['install']);
      const attempt = store.startAttempt(claim, 'typecheck');
      const error =
        "src/Checkout.tsx(88,14): error TS2345: Argument of type 'string' is not assignable to parameter of type 'Money'.";
      store.finishAttempt(claim, attempt.id, 'failed', error);
      store.failRun(claim, error);
      store.notify(
        run.id,
        { level: 'failure', title: 'Build iOS 5.12 failed', body: 'typecheck: TS2345 in src/Checkout.tsx' },
        this.runnerActor,
      );
      return run;
    });
  }

  // Timed out.
  private timedOutRun(): void {
    const { store, at } = this;
    at(90 * MINUTE, () => {
      const run = this.reserve('infra', 'terraform', 'Plan staging network changes', 'timed_out');
      const claim = this.claim(run.id, 5 * MINUTE);
      const attempt = store.startAttempt(claim, 'plan', {
        deadlineAt: Date.now() - 90 * MINUTE + 10 * MINUTE,
      });
      store.finishAttempt(claim, attempt.id, 'timed_out', 'terraform plan took longer than 10 minutes');
      store.timeOutRun(claim);
    });
  }

  // Cancelled: its runner died, a person cancelled the stale run (the real cascade).
  private cancelledRun(): void {
    const { store, person, at } = this;
    at(70 * MINUTE, () => {
      const run = this.reserve('billing-service', 'invoices', 'Send November invoices (EU)', 'cancelled');
      const claim = this.claim(run.id, MINUTE);
      store.startAttempt(claim, 'render-pdfs');
    });
    const cancelled = this.result.runs[this.result.runs.length - 1];
    if (cancelled !== undefined) {
      at(40 * MINUTE, () =>
        store.cancelRun(cancelled.id, {
          reason: 'Runner died; will rerun after the template fix.',
          actor: person,
        }),
      );
    }
  }

  // Stale: the runner stopped heartbeating mid-step with an effect in flight (cancelling it makes
  // that effect ambiguous). A second stale run in another project.
  private staleRuns(): void {
    const { store, at } = this;
    at(25 * MINUTE, () => {
      const run = this.reserve('billing-service', 'payouts', 'Pay out partners (week 48)', 'stale');
      const claim = this.claim(run.id, 2 * MINUTE);
      this.steps(claim, ['collect-balances']);
      const attempt = store.startAttempt(claim, 'transfer');
      const effect = store.reserveEffect(claim, {
        type: 'bank.transfer',
        idempotencyKey: 'payout-w48-partner-17',
        summary: 'Transfer €4,180.00 to partner #17',
        attemptId: attempt.id,
      });
      store.beginEffect(claim, effect.id);
    });
    at(12 * MINUTE, () => {
      const run = this.reserve('infra', 'backup', 'Snapshot production databases', 'stale');
      const claim = this.claim(run.id, MINUTE);
      store.startAttempt(claim, 'snapshot-orders-db');
    });
  }

  // Orphaned: its runner died but a process of its command kept running (docs/LIVENESS.md#orphans),
  // as a sweeper on the runner's machine found it. Only "Stop the command" is offered.
  private orphanedRun(): void {
    const { store, at } = this;
    at(8 * MINUTE, () => {
      const run = this.reserve('data-pipeline', 'backfill', 'Backfill events for October', 'orphaned');
      const claim = this.claim(run.id, 2 * MINUTE);
      this.steps(claim, ['list-partitions']);
      store.recordCommand(claim, { pid: 48213, pgid: 48213, startId: null });
      store.markOrphaned(run.id, claim.generation, { type: 'host', id: 'sweeper', surface: 'sweeper' });
    });
  }

  // Parked: the workflow source changed since the run started (resume needs --anyway).
  private parkedRuns(): void {
    const { store, at } = this;
    at(50 * MINUTE, () => {
      const run = this.reserve('acme-api', 'migrate', 'Migrate users table to v7 schema', 'parked');
      const claim = this.claim(run.id, 5 * MINUTE);
      this.steps(claim, ['plan']);
      store.park(
        claim,
        'sourceChanged',
        'workflows/migrate.ts changed (sha 1a2b3c → 9f8e7d) since the run started.',
      );
    });
    // Parked: the runner exited before finishing.
    at(35 * MINUTE, () => {
      const run = this.reserve('data-pipeline', 'reindex', 'Rebuild search index', 'parked');
      const claim = this.claim(run.id, 5 * MINUTE);
      this.steps(claim, ['scan']);
      store.park(claim, 'runnerExited', 'The runner exited with code 137 (out of memory) during "embed".');
    });
  }

  // Ambiguous: a side effect whose outcome is unknown; the run parked until a person resolves it.
  private ambiguousRun(): void {
    const { store, at } = this;
    at(20 * MINUTE, () => {
      const run = this.reserve('billing-service', 'refunds', 'Refund order #88121', 'ambiguous');
      const claim = this.claim(run.id, 5 * MINUTE);
      const attempt = store.startAttempt(claim, 'refund');
      const effect = store.reserveEffect(claim, {
        type: 'stripe.refund',
        idempotencyKey: 'refund-88121',
        summary: 'Refund $129.00 to card ending 4242 (order #88121)',
        attemptId: attempt.id,
      });
      store.beginEffect(claim, effect.id);
      store.settleEffect(claim, effect.id, 'ambiguous');
      store.park(claim, 'effectAmbiguous', 'The payment API timed out after the request was sent.');
      store.notify(
        run.id,
        { level: 'attention', title: 'Refund #88121 needs a decision', body: 'Did the refund go through?' },
        this.runnerActor,
      );
    });
  }

  // Paused by a person.
  private pausedRun(): void {
    const { store, person, at } = this;
    at(15 * MINUTE, () => {
      const run = this.reserve('infra', 'rotate-certs', 'Rotate TLS certificates', 'paused');
      store.pauseRun(run.id, {
        expectedRevision: run.revision,
        reason: 'Waiting for the change window.',
        actor: person,
      });
    });
  }

  // Queued: one fresh, one nobody picked up for a while (needs you), and the retry of the failed build.
  private queuedRuns(failed: { id: string }): void {
    const { store, person, at } = this;
    at(10 * MINUTE, () =>
      this.reserve('data-pipeline', 'export', 'Export weekly metrics to the warehouse', 'queued'),
    );
    this.reserve('acme-api', 'docs', 'Regenerate API reference', 'queued');
    const retry = store.retryRun(failed.id, { actor: person });
    this.result.runs.push({
      id: retry.id,
      expected: 'queued',
      title: retry.title,
      project: 'mobile-app',
      live: false,
    });
  }

  // Needs an answer (no runner attached: it parked and exited while asking). The live question is started below.
  private unattendedQuestion(): void {
    const { store, at } = this;
    at(5 * MINUTE, () => {
      const run = this.reserve('infra', 'dns', 'Move docs.example.com to the new CDN', 'needs-answer');
      const claim = this.claim(run.id, 5 * MINUTE);
      store.requestInteraction(claim, {
        kind: 'input',
        title: 'Which TTL for the new records?',
        prompt: 'The old records have **TTL 3600**. A short TTL makes a rollback fast.',
        fields: [
          { name: 'ttl', type: 'number', label: 'TTL in seconds', required: true },
          { name: 'purgeCache', type: 'boolean', label: 'Purge the CDN cache', required: true },
        ],
        defaultResponse: { ttl: 300, purgeCache: true },
        hasDefault: true,
        deadlineAt: Date.now() - 5 * MINUTE + 2 * HOUR,
      });
      // A runner that asks and then exits parks the run; the question stays open.
      store.park(claim, 'runnerExited', 'The runner exited after asking; resume the run once answered.');
    });
  }

  // Waiting: a person answered, and the runner (busy elsewhere) has not read the answer yet.
  private waitingRun(): void {
    const { store, person, at } = this;
    at(2 * MINUTE, () => {
      const run = this.reserve('acme-api', 'docs', 'Publish the docs site', 'waiting');
      const claim = this.claim(run.id, 6 * HOUR);
      const question = store.requestInteraction(claim, {
        kind: 'decision',
        title: 'Publish the docs now?',
        choices: ['publish', 'hold'],
      });
      store.answerInteraction(question.id, {
        interactionRevision: question.revision,
        idempotencyKey: `demo-answer-${run.id}`,
        payload: 'publish',
        actor: person,
      });
    });
  }

  private simulatedLiveRuns(): void {
    const { store, at } = this;
    // Simulated running runs: a long lease held by a runner on a host the sweeper cannot probe.
    for (const [project, workflow, title] of [
      ['acme-api', 'ci', 'Nightly integration tests'],
      ['data-pipeline', 'backfill', 'Backfill events 2026-Q3'],
    ] as const) {
      at(3 * MINUTE, () => {
        const run = this.reserve(project, workflow, title, 'running');
        const claim = this.claim(run.id, 6 * HOUR);
        this.steps(claim, ['prepare']);
        store.startAttempt(claim, 'run');
      });
    }
    at(MINUTE, () => {
      const run = this.reserve('billing-service', 'deploy', 'Deploy billing v2.4.1', 'needs-answer');
      const claim = this.claim(run.id, 6 * HOUR);
      store.requestInteraction(claim, {
        kind: 'decision',
        title: 'Deploy to production?',
        choices: ['yes', 'no'],
      });
    });
  }
}

/** A background `runwarden exec` the demo starts, and the display status its run should reach. */
interface LiveRunner {
  project: ProjectName;
  workflow: string;
  title: string;
  expected: DisplayStatus;
  argv: string[];
}

/** Starts the live runners, then waits until each one's run shows the status it should. */
async function startLiveRunners(
  ctx: CliContext,
  storePath: string,
  projects: Record<ProjectName, string>,
  liveMinutes: number,
  result: DemoResult,
): Promise<void> {
  for (const runner of liveRunners(liveMinutes)) {
    const key = `demo-live-${process.pid}-${runner.workflow}-${Date.now()}`;
    const pid = spawnLiveRunner(ctx, storePath, projects[runner.project], runner, key);
    if (pid !== undefined) result.runnerPids.push(pid);
    result.runs.push({
      id: key,
      expected: runner.expected,
      title: runner.title,
      project: runner.project,
      live: true,
    });
  }
  await waitForLiveRuns(ctx, storePath, result);
}

function liveRunners(liveMinutes: number): LiveRunner[] {
  // The long-running commands are a shell's sleep, as the question runner's shell already is: neither
  // may assume a Node (see spawnLiveRunner).
  const sleepCommand = ['sh', '-c', `exec sleep ${liveMinutes * (MINUTE / 1000)}`];
  return [
    {
      project: 'acme-api',
      workflow: 'ci',
      title: 'Nightly integration tests',
      expected: 'running',
      argv: sleepCommand,
    },
    {
      project: 'data-pipeline',
      workflow: 'backfill',
      title: 'Backfill events 2026-Q3',
      expected: 'running',
      argv: sleepCommand,
    },
    {
      project: 'billing-service',
      workflow: 'deploy',
      title: 'Deploy billing v2.4.1',
      expected: 'needs-answer',
      argv: [
        'sh',
        '-c',
        `runwarden ask --title 'Deploy billing v2.4.1 to production?' --prompt 'All checks passed on staging.' --choice yes --choice no --timeout ${liveMinutes}m && sleep 5`,
      ],
    },
  ];
}

/** One detached `runwarden exec` of the runner's command, left running after the demo returns; its pid. */
function spawnLiveRunner(
  ctx: CliContext,
  storePath: string,
  project: string,
  runner: LiveRunner,
  key: string,
): number | undefined {
  // Neither the runners nor their commands may assume a Node: in an installed app this process is the app's
  // own executable in Node mode, and starting it again without that mode opens the app; on Windows the
  // launcher is a `.cmd`, which Node cannot spawn without a shell (docs/DESKTOP-CHECKLIST.md#the-runwarden-command).
  const launch = runningCliLaunch(ctx.binPath);
  const [cli = ctx.binPath, ...cliArgs] = launch.argv;
  const child = spawn(
    cli,
    [
      ...cliArgs,
      'exec',
      '--store',
      storePath,
      '--project',
      project,
      '--workflow',
      runner.workflow,
      '--title',
      runner.title,
      '--lease-ms',
      '15000',
      '--key',
      key,
      '--quiet',
      '--',
      ...runner.argv,
    ],
    {
      cwd: project,
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, ...launch.env, RUNWARDEN_STORE: storePath },
    },
  );
  child.unref();
  return child.pid;
}

/** Until each live runner has reserved its run (by request key) and, for the question, asked it. */
async function waitForLiveRuns(ctx: CliContext, storePath: string, result: DemoResult): Promise<void> {
  const reader = openStore(storePath);
  try {
    const deadline = Date.now() + 15_000;
    for (const entry of result.runs.filter((run) => run.live)) {
      for (;;) {
        const found = reader
          .listRuns({ search: entry.title, limit: 5, view: 'all' })
          .items.find((item) => item.run.requestKey === entry.id);
        if (found !== undefined && found.display.status === entry.expected) {
          entry.id = found.run.id;
          break;
        }
        if (Date.now() > deadline) {
          ctx.stderr.write(`runwarden demo: the live runner for "${entry.title}" did not start in time\n`);
          break;
        }
        await sleep(100);
      }
    }
  } finally {
    reader.close();
  }
}

function describe(result: DemoResult): string {
  const counts = new Map<DisplayStatus, number>();
  for (const run of result.runs) counts.set(run.expected, (counts.get(run.expected) ?? 0) + 1);
  const summary = DISPLAY_STATUSES.filter((status) => counts.has(status))
    .map((status) => `${status} ${counts.get(status)}`)
    .join(', ');
  const lines = [
    `Demo store: ${result.storePath}`,
    `Projects under ${result.dir}: ${Object.keys(result.projects).join(', ')}`,
    `${result.runs.length} runs: ${summary}`,
    '',
    `See them:       runwarden ls${storeFlag(result)}`,
    `What needs you: runwarden ls --needs-you${storeFlag(result)}`,
  ];
  const question = result.runs.find((run) => run.live && run.expected === 'needs-answer');
  if (question !== undefined)
    lines.push(`Answer the live question: runwarden show ${question.id}${storeFlag(result)}`);
  if (result.runnerPids.length > 0) {
    lines.push(
      '',
      `The demo has ended, but ${result.runnerPids.length} live runner processes keep heartbeating in the background`,
      `for ${result.liveMinutes} ${result.liveMinutes === 1 ? 'minute' : 'minutes'} (--live-minutes), then end by themselves (pids in ${result.pidFile ?? '-'}).`,
      `Stop them sooner with: kill ${result.runnerPids.join(' ')}   (their runs then end cancelled)`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function storeFlag(result: DemoResult): string {
  return ` --store ${JSON.stringify(result.storePath)}`;
}
