/**
 * "The same work, once", checked by a generator instead of a list (docs/TESTING.md#the-workflow-generator).
 * Each round composes a workflow from real shapes — a shell script, nested `exec` (one or two levels), a Makefile whose recipe lines are each
 * their own shell, Python `subprocess` with `shell=True` (and with a timeout), `effect --key` and
 * `effect begin`/`end`, a question answered by its default while a process inside the run tries to answer
 * it — runs it under `exec` (with or without `--key`), SIGKILLs a random process of it at a random moment
 * (its supervisor, an effect, the ask, the command, or later the worker), and then recovers the way the
 * CLI's own hints say: cancel (or `cancel --stop-command` for an orphaned command), resolve each effect of
 * unknown outcome as an honest person would (from the ledger), retry (sometimes with a second `--again`),
 * reuse the key (the same line again, another command, another folder, another project), and run what is
 * queued with `worker --once`. After every round:
 *   - no effect's command ran twice (the append-only ledger each effect command writes);
 *   - every run's record describes what ran: a line the command writes first names its run, and that run's
 *     recorded argv, folder and project are the ones it ran with; a completed run's command did run;
 *   - no question was answered from inside its run;
 *   - no finished run holds an applying effect;
 *   - `runwarden doctor` is clean.
 * Seeded: RUNWARDEN_CHAOS_SEED replays the draws (the processes' timing still varies); a failing round is
 * printed with the shapes it drew. RUNWARDEN_CHAOS_ROUNDS and RUNWARDEN_CHAOS_PARALLEL size it.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { killQuietly, runCli, spawnCli, tempDir, waitFor, type CliResult } from '../helpers/cli';
import { chaosSeed, pick, seededRandom, type Random } from '../helpers/seeded-random';

const ROUNDS = Number(process.env.RUNWARDEN_CHAOS_ROUNDS ?? 240);
const PARALLEL = Number(process.env.RUNWARDEN_CHAOS_PARALLEL ?? 6);
const SEED = chaosSeed();

const dir = tempDir('runwarden-generator-');
afterAll(() => dir.remove());

const SHAPES = [
  'sh',
  'make',
  'make-begin-end',
  'python-shell',
  'python-timeout',
  'begin-end',
  'nested',
] as const;
const VICTIMS = ['supervisor', 'effect', 'ask', 'command', 'worker', 'none'] as const;
const REUSES = ['none', 'same-line', 'other-argv', 'other-folder', 'other-project'] as const;
const INSIDE_ANSWERS = ['none', 'direct', 'env -u', 'env -i', 'setsid env -i'] as const;
type Shape = (typeof SHAPES)[number];
/** RUNWARDEN_CHAOS_SHAPES=make,nested draws only those shapes (a replay aimed at one of them). */
const DRAWN_SHAPES: readonly Shape[] =
  process.env.RUNWARDEN_CHAOS_SHAPES?.split(',').filter((shape): shape is Shape =>
    (SHAPES as readonly string[]).includes(shape),
  ) ?? SHAPES;
type Victim = (typeof VICTIMS)[number];
type Reuse = (typeof REUSES)[number];

/** What a round drew: printed with a failure, replayed from the seed. */
interface Plan {
  round: number;
  shape: Shape;
  ask: boolean;
  insideAnswer: (typeof INSIDE_ANSWERS)[number];
  effects: number;
  /** nested: how many levels of `exec` inside the run (1 or 2). */
  depth: number;
  keyed: boolean;
  inSub: boolean;
  victim: Victim;
  killAfterMs: number;
  effectSeconds: string;
  afterSeconds: string;
  timeoutSeconds: string;
  again: boolean;
  reuse: Reuse;
}

function drawPlan(round: number, random: Random): Plan {
  const shape = pick(random, DRAWN_SHAPES);
  const ask = shape !== 'python-timeout' && random() < 0.5;
  const keyed = random() < 0.7;
  return {
    round,
    shape,
    ask,
    insideAnswer: ask && shape === 'sh' ? pick(random, INSIDE_ANSWERS) : 'none',
    effects: random() < 0.5 ? 1 : 2,
    depth: random() < 0.5 ? 1 : 2,
    keyed,
    inSub: random() < 0.3,
    victim: pick(random, VICTIMS),
    killAfterMs: Math.floor(random() * 1500),
    effectSeconds: (random() * 0.6).toFixed(2),
    afterSeconds: (random() * 0.5).toFixed(2),
    timeoutSeconds: (0.2 + random() * 0.8).toFixed(2),
    again: random() < 0.3,
    reuse: keyed ? pick(random, REUSES) : 'none',
  };
}

/** The round's folders and files: two projects (each with a subfolder), the ledger and the "ran" file. */
interface Place {
  root: string;
  projects: { a: string; b: string };
  ledger: string;
  ran: string;
}

function placeOf(round: number): Place {
  const root = join(dir.path, `r${round}`);
  const projects = { a: join(root, 'a'), b: join(root, 'b') };
  for (const project of Object.values(projects)) mkdirSync(join(project, 'sub'), { recursive: true });
  return { root, projects, ledger: join(root, 'ledger'), ran: join(root, 'ran') };
}

/** The shell lines of a workflow: `tag` names the command, `suffix` its effect keys. */
function shellLines(plan: Plan, place: Place, tag: string, suffix: string): string[] {
  const key = (n: number) => `r${plan.round}-e${n}${suffix}`;
  const pay = (n: number) =>
    `echo "${key(n)} $RUNWARDEN_RUN_ID" >> ${place.ledger}; sleep ${plan.effectSeconds}`;
  const effect = (n: number): string[] => {
    const idFile = join(place.root, `${key(n)}.id`);
    switch (plan.shape) {
      case 'begin-end':
        return [
          `id=$(runwarden effect begin --key ${key(n)}) && if [ -n "$id" ]; then ${pay(n)}; runwarden effect end "$id" --applied; fi`,
        ];
      // Each recipe line is its own shell: begin, pay and end from three processes.
      case 'make-begin-end':
        return [
          `runwarden effect begin --key ${key(n)} > ${idFile}`,
          `if [ -s ${idFile} ]; then ${pay(n)}; fi`,
          `if [ -s ${idFile} ]; then runwarden effect end "$(cat ${idFile})" --applied; fi`,
        ];
      default:
        return [`runwarden effect --key ${key(n)} -- sh -c '${pay(n)}'`];
    }
  };
  const lines = [`echo "ran ${tag} $RUNWARDEN_RUN_ID $(pwd)" >> ${place.ran}`];
  if (plan.insideAnswer !== 'none') lines.push(insideAnswer(plan));
  if (plan.ask)
    lines.push(`runwarden ask --title q${plan.round} --choice a --default a --timeout 1s > /dev/null`);
  for (let n = 1; n <= plan.effects; n += 1) lines.push(...effect(n));
  lines.push(`sleep ${plan.afterSeconds}`);
  return lines;
}

/** A process of the run, in the background, that tries to answer the run's question: always refused. */
function insideAnswer(plan: Plan): string {
  const prefix = {
    none: '',
    direct: '',
    'env -u': 'env -u RUNWARDEN_RUN_ID -u RUNWARDEN_RUN_TOKEN',
    'env -i': 'env -i PATH="$PATH" HOME="$HOME" RUNWARDEN_STORE="$RUNWARDEN_STORE"',
    'setsid env -i': 'setsid -f env -i PATH="$PATH" HOME="$HOME" RUNWARDEN_STORE="$RUNWARDEN_STORE"',
  }[plan.insideAnswer];
  const pending = `let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const i=JSON.parse(s).value.snapshot.interactions.find(x=>x.status==="pending");console.log(i?i.id:"")})`;
  return `( sleep 0.4; q=$(runwarden show "$RUNWARDEN_RUN_ID" --json | "$RUNWARDEN_NODE" -e '${pending}'); [ -n "$q" ] && ${prefix} runwarden answer "$q" a --key inside-${plan.round} ) > /dev/null 2>&1 &`;
}

/** Writes what the shape needs and returns the argv exec runs, with `tag` in it. */
function commandOf(plan: Plan, place: Place, folder: string, tag: string, suffix: string): string[] {
  const lines = shellLines(plan, place, tag, suffix);
  switch (plan.shape) {
    case 'sh':
    case 'begin-end':
      return ['sh', '-c', `: ${tag}; ${lines.join('; ')}`];
    case 'make':
    case 'make-begin-end': {
      const makefile = join(place.root, `${tag}.mk`);
      const recipe = lines.map((line) => `\t${line.replaceAll('$', () => '$$')}`).join('\n');
      writeFileSync(makefile, `all:\n${recipe}\n`);
      return ['make', '-s', '-f', makefile];
    }
    case 'nested':
      return nestedCommand(plan, place, tag, suffix);
    case 'python-shell':
    case 'python-timeout': {
      const script = join(place.root, `${tag}.py`);
      const timeout = plan.shape === 'python-timeout' ? `, timeout=${plan.timeoutSeconds}` : '';
      const calls = lines.map(
        (line) =>
          `try:\n    subprocess.run(${JSON.stringify(line)}, shell=True${line.includes('effect') ? timeout : ''})\nexcept subprocess.TimeoutExpired:\n    pass`,
      );
      writeFileSync(script, `import subprocess\n${calls.join('\n')}\n`);
      return ['python3', script];
    }
  }
  return [folder];
}

/**
 * A run whose command runs \`runwarden exec\` (one or two levels deep): each level is a script that records it
 * ran, then execs the next; the deepest asks and performs the effects.
 */
function nestedCommand(plan: Plan, place: Place, tag: string, suffix: string): string[] {
  let body = shellLines(plan, place, `${tag}-in${plan.depth}`, suffix);
  for (let level = plan.depth; level >= 1; level -= 1) {
    const file = join(place.root, `${tag}-in${level}.sh`);
    writeFileSync(file, `${body.join('\n')}\n`);
    const here = level === 1 ? tag : `${tag}-in${level - 1}`;
    body = [`echo "ran ${here} $RUNWARDEN_RUN_ID $(pwd)" >> ${place.ran}`, `runwarden exec -- sh ${file}`];
  }
  return ['sh', '-c', `: ${tag}; ${body.join('; ')}`];
}

type Role = 'supervisor' | 'effect' | 'ask' | 'command';

/** The live processes below `root`, by the role each plays in the run. */
function processesOf(root: number): Map<Role, number> {
  const parent = new Map<number, number>();
  const cmdline = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      parent.set(Number(entry), Number(fields[1]));
      cmdline.set(Number(entry), readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' '));
    } catch {
      // Gone meanwhile.
    }
  }
  const found = new Map<Role, number>([['supervisor', root]]);
  for (const [pid] of parent) {
    let up = parent.get(pid);
    let depth = 1;
    while (up !== undefined && up !== root && up > 1 && depth < 30) {
      up = parent.get(up);
      depth += 1;
    }
    if (up !== root) continue;
    const line = cmdline.get(pid) ?? '';
    if (parent.get(pid) === root && !found.has('command')) found.set('command', pid);
    else if (/runwarden\.js effect/.test(line)) found.set('effect', pid);
    else if (/runwarden\.js ask/.test(line)) found.set('ask', pid);
  }
  return found;
}

/** Pids of live processes whose command line names this round's folder. */
function roundProcesses(place: Place): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(`${place.root}/`)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

function query<T>(sql: string, ...params: unknown[]): T[] {
  const db = new Database(dir.store, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

function linesOf(file: string): string[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];
}

const TERMINAL = ['completed', 'failed', 'timed_out', 'cancelled'];
const ROUND_RUNS = `SELECT r.id, r.status, r.command_json, p.canonical_path AS project
  FROM runs r JOIN projects p ON p.id = r.project_id WHERE p.canonical_path LIKE ? || '/%'`;

interface RunRow {
  id: string;
  status: string;
  command_json: string | null;
  project: string;
}

function roundRuns(place: Place): RunRow[] {
  return query<RunRow>(ROUND_RUNS, place.root);
}

/** Ends the run as the CLI's hints say: cancel it, or stop its orphaned command when it has one. */
async function endRun(runId: string): Promise<void> {
  await waitFor(
    `run ${runId} to end`,
    async () => {
      const status = query<{ status: string }>(`SELECT status FROM runs WHERE id = ?`, runId)[0]?.status;
      if (TERMINAL.includes(status ?? '')) return true;
      const cancel = await runCli(['cancel', runId, '--yes'], { store: dir.store });
      if (cancel.code === 3) await runCli(['cancel', '--stop-command', runId, '--yes'], { store: dir.store });
      return false;
    },
    180_000,
    500,
  );
}

/**
 * After the runs ended and nothing of the round still runs: each effect of unknown outcome is resolved as an
 * honest person would, from what the ledger shows happened.
 */
async function settleRound(place: Place): Promise<void> {
  for (const run of roundRuns(place)) if (!TERMINAL.includes(run.status)) await endRun(run.id);
  await waitFor('the round’s processes to end', () => roundProcesses(place).length === 0, 60_000, 200);
  const ledger = linesOf(place.ledger).map((line) => line.split(' ')[0]);
  const unknown = query<{ id: number; idempotency_key: string }>(
    `SELECT e.id, e.idempotency_key FROM effects e JOIN runs r ON r.id = e.run_id
     JOIN projects p ON p.id = r.project_id WHERE e.status = 'ambiguous' AND p.canonical_path LIKE ? || '/%'`,
    place.root,
  );
  for (const effect of unknown) {
    const happened = ledger.includes(effect.idempotency_key);
    const resolved = await runCli(
      ['resolve', String(effect.id), happened ? '--happened' : '--not-happened', '--note', 'from the ledger'],
      { store: dir.store },
    );
    expect([0, 5], `resolve ${effect.id}: ${resolved.stderr}`).toContain(resolved.code);
  }
}

/** Runs `exec` with the round's command, SIGKILLing the drawn victim at the drawn moment. */
async function execWithKill(plan: Plan, argv: string[], project: string, cwd: string, victim: Victim) {
  const key = plan.keyed ? ['--key', `k${plan.round}`] : [];
  const exec = spawnCli(['exec', '--project', project, ...key, '--', ...argv], {
    store: dir.store,
    cwd,
    timeoutMs: 240_000,
  });
  let exited = false;
  void exec.done.then(
    () => (exited = true),
    () => (exited = true),
  );
  // The moment is counted from the run's start: its id on stderr.
  await waitFor('the run id', () => exited || /runwarden: run run_\w+/.test(exec.stderr), 120_000);
  if (victim !== 'none' && victim !== 'worker' && !exited) {
    await new Promise((resolve) => setTimeout(resolve, plan.killAfterMs));
    const present = processesOf(exec.child.pid ?? 0);
    killQuietly(present.get(victim) ?? present.get('command'), 'SIGKILL');
  }
  const result = await exec.done.catch(
    (error: unknown) => ({ code: null, stderr: String(error) }) as CliResult,
  );
  return { result, runId: /runwarden: run (run_\w+)/.exec(result.stderr)?.[1] };
}

/** `worker --once` for the round's queued runs, the worker SIGKILLed at the drawn moment when it is the victim. */
async function runQueued(plan: Plan, place: Place): Promise<void> {
  for (let turn = 0; turn < 3; turn += 1) {
    if (!roundRuns(place).some((run) => run.status === 'queued')) return;
    const worker = spawnCli(['worker', '--once', '--project', place.projects.a], {
      store: dir.store,
      cwd: place.projects.a,
      timeoutMs: 240_000,
    });
    if (plan.victim === 'worker' && turn === 0) {
      await new Promise((resolve) => setTimeout(resolve, plan.killAfterMs));
      killQuietly(worker.child.pid, 'SIGKILL');
    }
    await worker.done.catch(() => undefined);
    await settleRound(place);
  }
}

/** The key used again after the run ended and was retried (docs/CLI.md#the-same-line-again). */
async function reuseKey(plan: Plan, place: Place, argv: string[], folder: string): Promise<void> {
  if (plan.reuse === 'none') return;
  const queued = roundRuns(place).some((run) => run.status === 'queued');
  const otherFolder = plan.inSub ? place.projects.a : join(place.projects.a, 'sub');
  const otherTag = `r${plan.round}x`;
  const cases: Record<Exclude<Reuse, 'none'>, () => [string[], string, string]> = {
    'same-line': () => [argv, place.projects.a, folder],
    'other-argv': () => [commandOf(plan, place, folder, otherTag, 'x'), place.projects.a, folder],
    'other-folder': () => [argv, place.projects.a, otherFolder],
    'other-project': () => [
      commandOf(plan, place, place.projects.b, otherTag, 'x'),
      place.projects.b,
      place.projects.b,
    ],
  };
  const [command, project, cwd] = cases[plan.reuse]();
  const { result } = await execWithKill(plan, command, project, cwd, 'none');
  if (plan.reuse === 'other-argv' || plan.reuse === 'other-folder') {
    expect(result.code, `${plan.reuse}: ${result.stderr}`).toBe(5);
  } else if (plan.reuse === 'same-line' && !queued) {
    expect(result.code, `same line, nothing queued: ${result.stderr}`).toBe(5);
  } else {
    expect(result.code, `${plan.reuse}: ${result.stderr}`).not.toBe(5);
  }
  await settleRound(place);
}

async function playRound(plan: Plan): Promise<void> {
  const place = placeOf(plan.round);
  const folder = plan.inSub ? join(place.projects.a, 'sub') : place.projects.a;
  const argv = commandOf(plan, place, folder, `r${plan.round}`, '');
  const first = await execWithKill(plan, argv, place.projects.a, folder, plan.victim);
  if (first.runId === undefined) throw new Error(`exec started no run: ${first.result.stderr}`);
  await settleRound(place);
  const retry = await runCli(['retry', first.runId], { store: dir.store });
  expect([0, 5], retry.stderr).toContain(retry.code);
  if (retry.code === 0 && plan.again) {
    const again = await runCli(['retry', first.runId, '--again'], { store: dir.store });
    expect([0, 5], again.stderr).toContain(again.code);
  }
  await reuseKey(plan, place, argv, folder);
  await runQueued(plan, place);
  checkRound(plan, place);
}

/** The invariants of a round, from its files and the store. */
function checkRound(plan: Plan, place: Place): void {
  const keys = linesOf(place.ledger).map((line) => line.split(' ')[0]);
  const twice = keys.filter((key, i) => keys.indexOf(key) !== i);
  expect(twice, 'an effect’s command ran twice').toEqual([]);
  const runs = new Map(roundRuns(place).map((run) => [run.id, run]));
  const ran = linesOf(place.ran).map((line) => line.split(' '));
  for (const [, tag, runId, pwd] of ran) {
    const run = runs.get(runId ?? '');
    const command = run?.command_json
      ? (JSON.parse(run.command_json) as { argv: string[]; cwd: string })
      : null;
    expect(command?.argv.join(' '), `run ${runId} ran ${tag} in ${pwd}`).toContain(tag);
    expect(command?.cwd, `run ${runId}'s folder`).toBe(pwd);
    expect(pwd?.startsWith(`${run?.project}`), `run ${runId}'s project ${run?.project}`).toBe(true);
  }
  for (const run of runs.values()) {
    if (run.status !== 'completed') continue;
    expect(
      ran.some((line) => line[2] === run.id),
      `run ${run.id} is recorded completed, but its command did not run`,
    ).toBe(true);
  }
  const inside = query(
    `SELECT s.interaction_id FROM submissions s WHERE s.outcome = 'accepted' AND s.idempotency_key = ?`,
    `inside-${plan.round}`,
  );
  expect(inside, 'a question answered from inside its run').toEqual([]);
}

/** Store-wide: no finished run holds an applying effect, and doctor finds nothing. */
async function checkStore(): Promise<void> {
  const applying = query<{ id: number }>(
    `SELECT e.id FROM effects e JOIN runs r ON r.id = e.run_id
     WHERE e.status = 'applying' AND r.status IN ('completed', 'failed', 'timed_out', 'cancelled')`,
  );
  expect(applying, 'finished runs holding applying effects').toEqual([]);
  const doctor = await runCli(['doctor'], { store: dir.store, timeoutMs: 120_000 });
  expect(doctor.code, `doctor: ${doctor.stdout}${doctor.stderr}`).toBe(0);
}

it(`${ROUNDS} generated workflows, killed at random: nothing twice, no record lies, no self-answer`, async () => {
  const random = seededRandom(SEED);
  // Each round draws from its own generator, so rounds running side by side replay the same way.
  const plans = Array.from({ length: ROUNDS }, (_, i) =>
    drawPlan(i, seededRandom(Math.floor(random() * 2 ** 32))),
  );
  let next = 0;
  const failures: string[] = [];
  const lane = async (): Promise<void> => {
    while (next < ROUNDS) {
      const plan = plans[next] as Plan;
      next += 1;
      try {
        await playRound(plan);
        await checkStore();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        failures.push(`round ${plan.round} ${JSON.stringify(plan)}: ${message}`);
      }
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: PARALLEL }, lane));
  const counts = Object.fromEntries(
    SHAPES.map((shape) => [shape, plans.filter((p) => p.shape === shape).length]),
  );
  process.stdout.write(
    `workflow generator: ${ROUNDS} rounds (${PARALLEL} at a time) in ${Math.round((Date.now() - started) / 1000)} s, seed ${SEED}, shapes ${JSON.stringify(counts)}\n`,
  );
  if (failures.length > 0) {
    process.stderr.write(
      `generator seed ${SEED} (replay: RUNWARDEN_CHAOS_SEED=${SEED})\n${failures.join('\n')}\n`,
    );
  }
  expect(failures, `seed ${SEED} (RUNWARDEN_CHAOS_SEED=${SEED})`).toEqual([]);
}, 1_800_000);
