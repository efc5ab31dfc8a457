/**
 * The exact commands that act on a run's open items, as `show` prints them: each one shell-quoted
 * (shell-quote.ts), so pasting it passes a hostile choice such as `$(touch marker)` as text and runs
 * nothing else. A choice with characters that cannot be shown as themselves is given as `--json` with
 * those characters escaped. Only actions the run allows right now are offered (display-status actions,
 * plus resolving an ambiguous effect, which needs only that no live runner holds the run).
 */
import { isTerminalRunStatus, type Interaction, type InteractionField } from '../../shared/domain';
import type { RunDetail } from '../store';
import { jsonArg, pasteableArg, shellCommand, shellQuote } from '../platform/shell-quote';

export interface NextCommand {
  /** What the command does, in words. */
  what: string;
  command: string;
}

const MAX_CHOICES = 8;

export function nextCommands(detail: RunDetail): NextCommand[] {
  const { run, interactions, effects } = detail.snapshot;
  // A retry that has not finished is what to look at, not another retry (refused without --again: two
  // copies of the same work would run at once).
  const openRetry = detail.retries.find((retry) => !isTerminalRunStatus(retry.status));
  const actions = new Set(detail.display.actions);
  const id = shellQuote(run.id);
  const out: NextCommand[] = [];
  if (actions.has('answer')) {
    for (const interaction of interactions) {
      if (interaction.status === 'pending' || interaction.status === 'presenting') {
        out.push(...answerCommands(interaction));
      }
    }
  }
  // Any ambiguous effect can be resolved once no live runner holds the run, a finished run included
  // (a cancel that caught an effect in flight leaves it cancelled with the effect ambiguous).
  if (actions.has('resolveEffect') || !detail.display.liveOwner) {
    for (const effect of effects) {
      if (effect.status !== 'ambiguous') continue;
      for (const [flag, words] of [
        ['--happened', 'it happened'],
        ['--not-happened', 'it did not happen'],
      ] as const) {
        out.push({
          what: `effect ${effect.id}: say ${words}`,
          command: `runwarden resolve ${effect.id} ${flag} --note ${shellQuote('how you know')}`,
        });
      }
    }
  }
  // Queued with no runner to pick it up (a retry, a resumed run): say what starts one.
  if (detail.display.status === 'queued' && detail.display.needsYou) {
    out.push({ what: 'start a runner that picks up queued runs', command: 'runwarden worker' });
  }
  if (actions.has('resume')) out.push({ what: 'queue it again', command: `runwarden resume ${id}` });
  if (actions.has('resumeAnyway')) {
    out.push({ what: 'resume although the source changed', command: `runwarden resume ${id} --anyway` });
  }
  if (actions.has('stopCommand')) {
    out.push({
      what: 'stop its orphaned command, then cancel it',
      command: `runwarden cancel --stop-command ${id}`,
    });
  }
  // An orphan whose command runs where this host cannot see it: the stop has to happen on that machine.
  if (detail.display.status === 'orphaned' && !actions.has('stopCommand')) {
    const host = detail.snapshot.lease?.ownerHostname ?? 'the machine it ran on';
    out.push({
      what: `on ${host}, where its command runs: stop the command, then cancel it`,
      command: `runwarden cancel --stop-command ${id}`,
    });
  }
  if (actions.has('cancel')) out.push({ what: 'cancel it', command: `runwarden cancel ${id}` });
  if (actions.has('requestCancel')) {
    out.push({ what: 'ask its runner to stop', command: `runwarden cancel --request ${id}` });
  }
  if (actions.has('requestPause')) {
    out.push({ what: 'ask its runner to pause', command: `runwarden pause --request ${id}` });
  }
  if (actions.has('pause')) out.push({ what: 'pause it', command: `runwarden pause ${id}` });
  if (actions.has('retry') && openRetry !== undefined) {
    out.push({
      what: `its retry is ${openRetry.status}: look at it`,
      command: `runwarden show ${shellQuote(openRetry.id)}`,
    });
  } else if (actions.has('retry')) {
    out.push({ what: 'run it again as a new run', command: `runwarden retry ${id}` });
  }
  return out;
}

function answerCommands(interaction: Interaction): NextCommand[] {
  const base = ['runwarden', 'answer', interaction.id];
  if (interaction.kind === 'decision') {
    const choices = interaction.choices ?? [];
    return choices.slice(0, MAX_CHOICES).map((choice) => ({
      what: `answer ${interaction.id}`,
      command:
        pasteableArg(choice) && choice !== '' && !choice.startsWith('-')
          ? shellCommand([...base, choice])
          : `${shellCommand(base)} --json ${jsonArg(choice)}`,
    }));
  }
  const example = Object.fromEntries(
    (interaction.fields ?? []).map((field: InteractionField) => [field.name, placeholder(field)]),
  );
  return [{ what: `answer ${interaction.id}`, command: `${shellCommand(base)} --json ${jsonArg(example)}` }];
}

function placeholder(field: InteractionField): unknown {
  switch (field.type) {
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'string':
      return '';
    case 'choice': {
      const first = field.options?.[0]?.label ?? '';
      return field.multi === true ? [first] : first;
    }
  }
}
