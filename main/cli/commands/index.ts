/** Every CLI command, in the order `runwarden --help` lists them. */
import type { Command } from '../command';
import { answerCommand } from './answer';
import { askCommand } from './ask';
import { cancelCommand } from './cancel';
import { demoCommand } from './demo';
import { doctorCommand } from './doctor';
import { effectCommand } from './effect';
import { execCommand } from './exec';
import { lsCommand } from './ls';
import { notifyCommand } from './notify';
import { parkCommand } from './park';
import { progressCommand } from './progress';
import { resolveCommand } from './resolve';
import { pauseCommand } from './pause';
import { resumeCommand } from './resume';
import { retryCommand } from './retry';
import { serveCommand } from './serve';
import { showCommand } from './show';
import { stepCommand } from './step';
import { workerCommand } from './worker';

export const COMMANDS: readonly Command[] = [
  execCommand,
  stepCommand,
  effectCommand,
  progressCommand,
  parkCommand,
  askCommand,
  notifyCommand,
  workerCommand,
  lsCommand,
  showCommand,
  cancelCommand,
  pauseCommand,
  resumeCommand,
  answerCommand,
  resolveCommand,
  retryCommand,
  doctorCommand,
  demoCommand,
  serveCommand,
];

export function findCommand(name: string): Command | undefined {
  return COMMANDS.find((command) => command.name === name);
}
