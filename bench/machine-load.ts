/**
 * A second process that keeps the machine busy while the window is measured (`--load N`): N threads, each
 * spinning on arithmetic and short-lived allocations, as a build or a test run beside the app would. It is
 * a child process, so it competes for the cores like any other program, and it is ended by its id.
 */
import { spawn, type ChildProcess } from 'node:child_process';

/** The child's script: N worker threads (the main thread only waits), each busy until the process ends. */
const LOAD_SCRIPT = `
const { Worker } = require('node:worker_threads');
const threads = Number(process.argv[1]);
const spin = \`
  let keep = [];
  for (;;) {
    let x = 0;
    for (let i = 0; i < 200000; i += 1) x = (x * 31 + i) % 1000003;
    keep.push(new Array(64).fill(x));
    if (keep.length > 2000) keep = [];
  }\`;
for (let i = 0; i < threads; i += 1) new Worker(spin, { eval: true });
process.stdout.write('ready\\n');
`;

export interface MachineLoad {
  threads: number;
  stop(): Promise<void>;
}

/** Starts the load process and resolves once its threads are spinning. */
export async function startMachineLoad(threads: number): Promise<MachineLoad> {
  const child: ChildProcess = spawn(process.execPath, ['-e', LOAD_SCRIPT, String(threads)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the load process did not start')), 10_000);
    child.stdout?.setEncoding('utf8').once('data', () => {
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the load process exited with ${String(code)}`));
    });
  });
  // Let the threads reach full speed before anything is timed.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return {
    threads,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
