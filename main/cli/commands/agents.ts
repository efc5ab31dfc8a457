/**
 * `runwarden agents install | uninstall | status | hook`: connect coding agents (Claude Code, Codex, pi,
 * Qwen Code, Gemini CLI, OpenCode) so
 * their sessions show as runs and their permission requests as questions (docs/AGENTS.md). `hook` is what
 * the installed hooks run on every event; it loads only the agent-session side of the store.
 */
import { COMMON_HELP, UsageError } from '../command';
import { defineCommand } from '../define-command';
import { sanitizeLine } from '../sanitize';
import { AGENT_LIST, hookOptions, parseAgent, questionTimeout } from '../agents/hook-options';

export { DEFAULT_QUESTION_TIMEOUT_MS } from '../agents/hook-options';

export const agentsCommand = defineCommand({
  name: 'agents',
  summary:
    'connect coding agents (Claude Code, Codex, pi, Qwen Code, Gemini CLI, OpenCode): install, uninstall, status',
  help: `Usage: runwarden agents install AGENT [--scope user|project] [--dry-run] [--json]
       runwarden agents uninstall AGENT [--scope user|project] [--dry-run] [--json]
       runwarden agents status [AGENT] [--scope user|project] [--json]
       runwarden agents hook AGENT        (what the installed hooks run)

AGENT is claude-code, codex, pi, qwen-code, gemini or opencode. "install" writes Runwarden's hooks into the
agent's own configuration (Claude Code: settings.json in $CLAUDE_CONFIG_DIR or ~/.claude; Codex:
config.toml in $CODEX_HOME or ~/.codex, with the trust Codex needs to run them; pi: an extension in
$PI_CODING_AGENT_DIR/extensions or ~/.pi/agent/extensions; Qwen Code: settings.json in $QWEN_HOME or
~/.qwen; Gemini CLI: ~/.gemini/settings.json; OpenCode: a plugin in $XDG_CONFIG_HOME/opencode/plugin
or ~/.config/opencode/plugin), next to the person's own hooks.
Installing twice is the same as once; "uninstall" puts the file back as it was before.
Then every session of the agent shows as a run ("<Agent> in <project>"), and each permission request
as a question answered from the window, the tray or "runwarden answer". Nobody answering before the
question's deadline hands the decision back to the agent's own prompt.

Options:
  --scope S               user (default) or project (the current project's agent settings)
  --dry-run               show what would change, change nothing
  --question-timeout DUR  install: how long a question waits for a person (default 570s, at most 590s)
  --gate                  install codex: ask before every tool call (codex exec never asks on its own)
  --poll-ms N             hook: how often a waiting hook reads its question (default 200)
  --json                  print the result as JSON
${COMMON_HELP}

--store given to install is written into the hooks, so they use that store.
Exit status: 0 done (hook: always 0, it never blocks the agent); 1 the configuration could not be
read or written (nothing was changed); 2 bad arguments.`,
  options: {
    scope: { type: 'string' },
    'dry-run': { type: 'boolean' },
    'question-timeout': { type: 'string' },
    gate: { type: 'boolean' },
    'poll-ms': { type: 'string' },
  },
  positionals: ['ACTION?', 'AGENT?'],
  async run({ ctx, values, args: [action, agentArg] }) {
    const agent = agentArg === undefined ? undefined : parseAgent(agentArg);
    if (action === 'hook') {
      if (agent === undefined) throw new UsageError(`agents hook needs the agent: ${AGENT_LIST}`);
      const options = hookOptions(agent, values);
      const { runHook } = await import('../agents/run-hook');
      return runHook(ctx, options);
    }
    const scope = values.scope ?? 'user';
    if (scope !== 'user' && scope !== 'project') throw new UsageError('--scope must be user or project');
    const { runInstallAction } = await import('../agents/install-command');
    switch (action) {
      case 'install':
      case 'uninstall':
        if (agent === undefined) throw new UsageError(`agents ${action} needs the agent: ${AGENT_LIST}`);
        if (values['question-timeout'] !== undefined) questionTimeout(values['question-timeout']);
        return runInstallAction(ctx, action, agent, scope, values, values['dry-run'] === true);
      case 'status':
        return runInstallAction(ctx, 'status', agent, scope, values, false);
      case undefined:
        throw new UsageError('agents needs an action: install, uninstall, status or hook');
      default:
        throw new UsageError(
          `unknown agents action: ${sanitizeLine(action)} (install, uninstall, status or hook)`,
        );
    }
  },
});
