/** The install / uninstall / status actions of `runwarden agents`, and how their results are printed. */
import type { CliContext } from '../command';
import { printResult, storePathOf } from '../command';
import { EXIT } from '../exit-codes';
import { projectFolder } from '../project-path';
import { sanitizeLine, sanitizeText } from '../sanitize';
import { AGENT_LABELS, AGENT_NAMES, type AgentName } from '../../store/agent-sessions';
import { unstableHome } from '../../platform/stable-cli-path';
import { currentCli, hookCommandLine } from './cli-command';
import { install, status, uninstall, type InstallContext, type Scope } from './installers';

export interface InstallValues {
  store?: string;
  'question-timeout'?: string;
  gate?: boolean;
}

/** What an installer writes for `agent`: the hook command lines, with this command's store and options. */
export function installContext(ctx: CliContext, values: InstallValues, agent: AgentName): InstallContext {
  const cli = currentCli(ctx.binPath);
  // The hooks use the store this command would use when one was chosen (--store or RUNWARDEN_STORE).
  const store =
    values.store !== undefined || (ctx.env.RUNWARDEN_STORE ?? '') !== ''
      ? storePathOf(ctx, values.store)
      : null;
  const storeArgs = store === null ? [] : ['--store', store];
  const waitArgs = [
    ...(values['question-timeout'] === undefined ? [] : ['--question-timeout', values['question-timeout']]),
    ...(values.gate === true && agent === 'codex' ? ['--gate'] : []),
  ];
  return {
    env: ctx.env,
    project: projectFolder(undefined, ctx.cwd),
    gate: values.gate === true,
    command: (waits) => hookCommandLine(cli, agent, [...storeArgs, ...(waits ? waitArgs : [])]),
    cliArgv: [...cli.argv],
    cliEnv: { ...cli.env },
    hookArgs: [...storeArgs, ...waitArgs],
  };
}

export function runInstallAction(
  ctx: CliContext,
  action: 'install' | 'uninstall' | 'status',
  agent: AgentName | undefined,
  scope: Scope,
  values: InstallValues,
  dryRun: boolean,
): number {
  try {
    if (action === 'status') {
      const agents = agent === undefined ? AGENT_NAMES : [agent];
      const results = agents.map((name) => ({
        agent: name,
        ...status(name, scope, installContext(ctx, values, name)),
      }));
      printResult(ctx, results, () =>
        results
          .map((result) => {
            const head = `${AGENT_LABELS[result.agent]}: ${result.installed ? 'connected' : 'not connected'} (${sanitizeLine(result.path)})`;
            return [head, ...result.problems.map((problem) => `  ! ${sanitizeLine(problem)}`)].join('\n');
          })
          .join('\n'),
      );
      return results.some((result) => result.problems.length > 0) ? EXIT.failure : EXIT.ok;
    }
    if (agent === undefined) return EXIT.usage;
    const context = installContext(ctx, values, agent);
    // Hooks must name a CLI that is still there tomorrow (docs/DESKTOP-CHECKLIST.md#a-stable-home).
    const unstable = action === 'install' ? unstableHome(context.cliArgv.join(' '), process.platform) : null;
    if (unstable !== null) {
      ctx.stderr.write(`runwarden: ${unstable}\n`);
      return EXIT.failure;
    }
    const result =
      action === 'install'
        ? install(agent, scope, context, dryRun)
        : uninstall(agent, scope, context, dryRun);
    const verb = action === 'install' ? 'connected' : 'disconnected';
    printResult(ctx, { agent, path: result.path, changed: result.changed, dryRun, diff: result.diff }, () => {
      if (dryRun) return sanitizeText(result.diff);
      if (!result.changed) return `${AGENT_LABELS[agent]}: nothing to change in ${sanitizeLine(result.path)}`;
      return `${AGENT_LABELS[agent]} ${verb}: ${sanitizeLine(result.path)}`;
    });
    return EXIT.ok;
  } catch (error) {
    ctx.stderr.write(`runwarden: ${sanitizeLine(error instanceof Error ? error.message : String(error))}\n`);
    return EXIT.failure;
  }
}
