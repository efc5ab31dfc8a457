/**
 * `runwarden agents install | uninstall | status`: which file each agent reads, and what Runwarden puts in
 * it (docs/AGENTS.md#installing). Each agent's text transform is pure (old text → new text); this module
 * reads and writes the files, reversibly (config-file.ts).
 */
import { homedir } from 'node:os';
import type { AgentName } from '../../store/agent-sessions';
import { CLAUDE, claudeSettingsPath } from './claude-code-config';
import { codexConfigPath, codexStatus, installCodex, uninstallCodex } from './codex-config';
import { GEMINI, geminiSettingsPath } from './gemini-config';
import { QWEN, qwenSettingsPath } from './qwen-code-config';
import {
  hookSettingsStatus,
  installHookSettings,
  uninstallHookSettings,
  type HookSettingsSpec,
  type HookStatus,
  type Scope,
} from './hook-settings';
import { OPENCODE_MARKER, opencodePluginPath, opencodePluginSource, opencodeStatus } from './opencode-plugin';
import { PI_MARKER, piExtensionPath, piExtensionSource, piStatus } from './pi-extension';
import { rmSync } from 'node:fs';
import { lineDiff, readBytes, writeAtomic, writeInstalled, writeUninstalled } from './config-file';

export type { Scope } from './hook-settings';

/** The agents whose hooks live in a settings file of Claude Code's shape: one installer for all (hook-settings.ts). */
const HOOK_SETTINGS: Partial<Record<AgentName, HookSettingsSpec>> = {
  'claude-code': CLAUDE,
  'qwen-code': QWEN,
  gemini: GEMINI,
};

export interface InstallContext {
  env: Record<string, string | undefined>;
  /** The project folder (for `--scope project`). */
  project: string;
  /** The hook command line for this agent; `waits`: the hook may wait for a person. */
  command(waits: boolean): string;
  /** The CLI the pi extension spawns (Node and the CLI script), and the options it passes after `agents hook pi`. */
  cliArgv: string[];
  /** Variables the CLI's launch needs (Windows: Node mode). */
  cliEnv: Record<string, string>;
  hookArgs: string[];
  /** Codex: ask before every tool call (PreToolUse), for `codex exec`. */
  gate: boolean;
}

export interface InstallPlan {
  agent: AgentName;
  path: string;
  before: string | null;
  after: string | null;
  changed: boolean;
  diff: string;
}

function home(env: Record<string, string | undefined>): string {
  return env.HOME ?? homedir();
}

export function configPathOf(
  agent: AgentName,
  scope: Scope,
  ctx: Pick<InstallContext, 'env' | 'project'>,
): string {
  switch (agent) {
    case 'claude-code':
      return claudeSettingsPath(scope, ctx.env, ctx.project);
    case 'codex':
      return codexConfigPath(scope, ctx.env, ctx.project, home(ctx.env));
    case 'pi':
      return piExtensionPath(scope, ctx.env, ctx.project, home(ctx.env));
    case 'qwen-code':
      return qwenSettingsPath(scope, ctx.env, ctx.project);
    case 'gemini':
      return geminiSettingsPath(scope, ctx.env, ctx.project);
    case 'opencode':
      return opencodePluginPath(scope, ctx.env, ctx.project, home(ctx.env));
  }
}

function transformInstall(agent: AgentName, path: string, text: string | null, ctx: InstallContext): string {
  const settings = HOOK_SETTINGS[agent];
  if (settings !== undefined) return installHookSettings(settings, text, path, ctx.command);
  switch (agent) {
    case 'codex':
      return installCodex(text, path, ctx.command, ctx.gate);
    case 'pi':
      return piExtensionSource(ctx.cliArgv, ctx.hookArgs, ctx.cliEnv);
    case 'opencode':
      return opencodePluginSource(ctx.cliArgv, ctx.hookArgs, ctx.cliEnv);
    default:
      throw new Error(`no installer for ${agent}`);
  }
}

function transformUninstall(agent: AgentName, path: string, text: string | null): string | null {
  const settings = HOOK_SETTINGS[agent];
  if (settings !== undefined) return uninstallHookSettings(settings, text, path);
  // pi's extension and OpenCode's plugin are files of Runwarden's own: removed, not edited.
  return agent === 'codex' ? uninstallCodex(text, path) : null;
}

function plan(agent: AgentName, path: string, before: string | null, after: string | null): InstallPlan {
  return {
    agent,
    path,
    before,
    after,
    changed: before !== after,
    diff: lineDiff(path, before ?? '', after ?? ''),
  };
}

/** Agents whose file is Runwarden's own (pi's extension, OpenCode's plugin), by the line it starts with. */
const OWN_FILE: Partial<Record<AgentName, string>> = { pi: PI_MARKER, opencode: OPENCODE_MARKER };

export function install(agent: AgentName, scope: Scope, ctx: InstallContext, dryRun: boolean): InstallPlan {
  const path = configPathOf(agent, scope, ctx);
  const bytes = readBytes(path);
  const before = bytes === null ? null : bytes.toString('utf8');
  const marker = OWN_FILE[agent];
  // A file of that name that Runwarden did not write is the person's: never written over.
  if (marker !== undefined && before !== null && !before.startsWith(marker))
    throw new Error(`${path} exists and is not Runwarden's; move it away first, nothing was changed`);
  const after = transformInstall(agent, path, before, ctx);
  const result = plan(agent, path, before, after);
  if (dryRun || !result.changed) return result;
  // A file of Runwarden's own: nothing of the person's to keep beside it.
  if (marker !== undefined) writeAtomic(path, after);
  else
    writeInstalled(path, bytes, after, (text) =>
      status(agent, scope, ctx).installed ? transformUninstall(agent, path, text) : text,
    );
  return result;
}

export function uninstall(agent: AgentName, scope: Scope, ctx: InstallContext, dryRun: boolean): InstallPlan {
  const path = configPathOf(agent, scope, ctx);
  const bytes = readBytes(path);
  const before = bytes === null ? null : bytes.toString('utf8');
  const marker = OWN_FILE[agent];
  if (marker !== undefined) {
    const ours = before !== null && before.startsWith(marker);
    if (!dryRun && ours) rmSync(path);
    return plan(agent, path, before, ours ? null : before);
  }
  if (dryRun) return plan(agent, path, before, transformUninstall(agent, path, before));
  const restored = writeUninstalled(path, bytes, transformUninstall(agent, path, before));
  return plan(agent, path, before, restored === null ? null : restored.toString('utf8'));
}

export function status(agent: AgentName, scope: Scope, ctx: InstallContext): HookStatus & { path: string } {
  const path = configPathOf(agent, scope, ctx);
  const bytes = readBytes(path);
  const text = bytes === null ? null : bytes.toString('utf8');
  const settings = HOOK_SETTINGS[agent];
  if (settings !== undefined) return { path, ...hookSettingsStatus(settings, text, path) };
  switch (agent) {
    case 'codex':
      return { path, ...codexStatus(text, path, ctx.command) };
    case 'pi':
      return { path, ...piStatus(text, ctx.cliArgv, ctx.hookArgs, ctx.cliEnv) };
    case 'opencode':
      return { path, ...opencodeStatus(text, ctx.cliArgv, ctx.hookArgs, ctx.cliEnv) };
    default:
      throw new Error(`no installer for ${agent}`);
  }
}
