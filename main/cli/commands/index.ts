/**
 * Every CLI command, in the order `runwarden --help` lists them. Each command's module is loaded only when it
 * runs (a runner calls `notify`, `progress` or `step` often: start-up should load that command alone); the
 * names and summaries here are checked against the modules by test/main/cli/command-registry.test.ts.
 */
import type { Command } from '../command';

export interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<Command>;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'exec',
    summary: 'run a command as a durable run (heartbeat, cancel, answers)',
    load: async () => (await import('./exec')).execCommand,
  },
  {
    name: 'step',
    summary: 'inside a run: record a step around a command (or step start / step end)',
    load: async () => (await import('./step')).stepCommand,
  },
  {
    name: 'effect',
    summary: 'inside a run: perform a side effect at most once per key (effect begin / effect end)',
    load: async () => (await import('./effect')).effectCommand,
  },
  {
    name: 'progress',
    summary: 'inside a run: say what it is doing now',
    load: async () => (await import('./progress')).progressCommand,
  },
  {
    name: 'park',
    summary: 'inside a run: park it for a person (--source-changed DETAIL)',
    load: async () => (await import('./park')).parkCommand,
  },
  {
    name: 'ask',
    summary: 'ask a person from inside a run and wait for the answer',
    load: async () => (await import('./ask')).askCommand,
  },
  {
    name: 'notify',
    summary: 'add a notification (to the current run inside exec)',
    load: async () => (await import('./notify')).notifyCommand,
  },
  {
    name: 'worker',
    summary: 'claim queued runs that carry a command and run them',
    load: async () => (await import('./worker')).workerCommand,
  },
  { name: 'ls', summary: 'list runs with their status', load: async () => (await import('./ls')).lsCommand },
  {
    name: 'show',
    summary: 'show one run: lease, attempts, questions, effects, events',
    load: async () => (await import('./show')).showCommand,
  },
  {
    name: 'logs',
    summary: "print a run's output (stdout and stderr, in order), or follow it live",
    load: async () => (await import('./logs')).logsCommand,
  },
  {
    name: 'cancel',
    summary: 'cancel a stale or idle run (--request: ask a live runner to stop)',
    load: async () => (await import('./cancel')).cancelCommand,
  },
  {
    name: 'pause',
    summary: 'pause a queued or parked run (--request: ask a live runner to pause)',
    load: async () => (await import('./pause')).pauseCommand,
  },
  {
    name: 'resume',
    summary: 'resume a parked or paused run (or a selection of runs)',
    load: async () => (await import('./resume')).resumeCommand,
  },
  {
    name: 'answer',
    summary: 'answer a question a run is waiting on',
    load: async () => (await import('./answer')).answerCommand,
  },
  {
    name: 'resolve',
    summary: 'say whether a side effect with an unknown outcome happened',
    load: async () => (await import('./resolve')).resolveCommand,
  },
  {
    name: 'retry',
    summary: 'retry a finished run as a new run (or a selection of runs)',
    load: async () => (await import('./retry')).retryCommand,
  },
  {
    name: 'agents',
    summary:
      'connect coding agents (Claude Code, Codex, pi, Qwen Code, Gemini CLI, OpenCode): install, uninstall, status',
    load: async () => (await import('./agents')).agentsCommand,
  },
  {
    name: 'doctor',
    summary: 'check the store: path, size, schema, mode, WAL, contradictions, stale leases',
    load: async () => (await import('./doctor')).doctorCommand,
  },
  {
    name: 'demo',
    summary: 'fill a store with a realistic spread of runs in every state',
    load: async () => (await import('./demo')).demoCommand,
  },
  {
    name: 'remote',
    summary: 'attach other machines over SSH: remote add, remote ls, remote rm',
    load: async () => (await import('./remote')).remoteCommand,
  },
  {
    name: 'serve',
    summary: 'browser mode: the app over loopback HTTP with a token',
    load: async () => (await import('./serve')).serveCommand,
  },
];

export function findCommand(name: string): CommandEntry | undefined {
  return COMMANDS.find((command) => command.name === name);
}
