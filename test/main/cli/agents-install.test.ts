/**
 * `runwarden agents install | uninstall | status` on the agents' real configuration files
 * (docs/AGENTS.md#installing): the person's own hooks are kept, installing twice is installing once,
 * uninstalling gives the file back byte for byte, `--dry-run` changes nothing, and Codex's trust is
 * recorded and checked. (That the written hooks really run is proven by test/agents/, with the agents.)
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codexHookHash } from '../../../main/cli/agents/codex-config';
import { WAITING_LINE } from '../../../main/cli/agents/hook-settings';
import { runCli, tempDir, type TempDir } from '../../helpers/cli';

let dir: TempDir;
let env: Record<string, string>;
let project: string;

beforeEach(() => {
  dir = tempDir('runwarden-agents-install-');
  project = join(dir.path, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  env = {
    HOME: join(dir.path, 'home'),
    CLAUDE_CONFIG_DIR: join(dir.path, 'claude'),
    CODEX_HOME: join(dir.path, 'codex'),
    PI_CODING_AGENT_DIR: join(dir.path, 'pi-agent'),
    QWEN_HOME: join(dir.path, 'qwen'),
    GEMINI_CLI_HOME: join(dir.path, 'gemini-home'),
    XDG_CONFIG_HOME: join(dir.path, 'xdg-config'),
  };
});
afterEach(() => dir.remove());

function agents(args: string[]) {
  return runCli(['agents', ...args], { store: dir.store, env, cwd: project });
}

function bytes(path: string): Buffer | null {
  return existsSync(path) ? readFileSync(path) : null;
}

describe('Claude Code', () => {
  const settings = () => join(env.CLAUDE_CONFIG_DIR ?? '', 'settings.json');
  // The person's own file: four-space indent, their own PermissionRequest hook, no newline at the end.
  const ORIGINAL = JSON.stringify(
    {
      theme: 'dark',
      hooks: { PermissionRequest: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'my-guard' }] }] },
    },
    null,
    4,
  );

  it('merges with the person’s hooks; twice is once; uninstall restores the file byte for byte', async () => {
    mkdirSync(env.CLAUDE_CONFIG_DIR ?? '', { recursive: true });
    writeFileSync(settings(), ORIGINAL);
    const first = await agents(['install', 'claude-code']);
    expect(first.code, first.stderr).toBe(0);
    const installed = readFileSync(settings(), 'utf8');
    const parsed = JSON.parse(installed) as {
      theme: string;
      hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>>;
    };
    expect(parsed.theme).toBe('dark');
    expect(parsed.hooks.PermissionRequest?.[0]?.hooks[0]?.command).toBe('my-guard');
    expect(parsed.hooks.PermissionRequest?.[1]?.hooks[0]?.command).toContain('agents hook claude-code');
    // The terminal's line while an AskUserQuestion waits in Runwarden; its permission dialog needs none.
    const hookOf = (event: string) => parsed.hooks[event]?.at(-1)?.hooks[0] as Record<string, unknown>;
    expect(hookOf('PreToolUse').statusMessage).toBe(WAITING_LINE);
    expect(hookOf('PermissionRequest').statusMessage).toBeUndefined();
    expect(hookOf('PostToolUse').statusMessage).toBeUndefined();
    for (const event of [
      'SessionStart',
      'UserPromptSubmit',
      'PreToolUse',
      'PostToolUse',
      'Stop',
      'SessionEnd',
    ]) {
      expect(parsed.hooks[event]?.at(-1)?.hooks[0]?.command, event).toContain('agents hook claude-code');
    }
    expect(installed).toContain('\n    "theme"');

    const second = await agents(['install', 'claude-code']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('nothing to change');
    expect(readFileSync(settings(), 'utf8')).toBe(installed);

    const status = await agents(['status', 'claude-code']);
    expect(status.code, status.stdout).toBe(0);
    expect(status.stdout).toContain('Claude Code: connected');

    const removed = await agents(['uninstall', 'claude-code']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(bytes(settings())?.equals(Buffer.from(ORIGINAL))).toBe(true);
    expect(existsSync(`${settings()}.runwarden-install.json`)).toBe(false);
  });

  it('removes a settings file it created, and keeps the person’s later edits when they changed it', async () => {
    expect((await agents(['install', 'claude-code'])).code).toBe(0);
    expect((await agents(['uninstall', 'claude-code'])).code).toBe(0);
    expect(existsSync(settings())).toBe(false);

    expect((await agents(['install', 'claude-code'])).code).toBe(0);
    const edited = JSON.parse(readFileSync(settings(), 'utf8')) as Record<string, unknown>;
    edited.model = 'opus';
    writeFileSync(settings(), JSON.stringify(edited, null, 2));
    expect((await agents(['uninstall', 'claude-code'])).code).toBe(0);
    expect(JSON.parse(readFileSync(settings(), 'utf8'))).toEqual({ model: 'opus' });
  });

  it('--dry-run shows the change and writes nothing; a file that is not JSON is left alone', async () => {
    mkdirSync(env.CLAUDE_CONFIG_DIR ?? '', { recursive: true });
    writeFileSync(settings(), ORIGINAL);
    const dry = await agents(['install', 'claude-code', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('+ ');
    expect(dry.stdout).toContain('agents hook claude-code');
    expect(readFileSync(settings(), 'utf8')).toBe(ORIGINAL);

    writeFileSync(settings(), '{ "theme": ');
    const broken = await agents(['install', 'claude-code']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(
      /settings\.json is not valid JSON \(.+\); fix it first, nothing was changed/,
    );
    expect(readFileSync(settings(), 'utf8')).toBe('{ "theme": ');
  });

  it('refuses a settings file with comments, which Claude Code itself refuses, with the same sentence', async () => {
    // Claude Code reads settings.json as strict JSON: with a comment it loads none of it ("Invalid or
    // malformed JSON") and runs no hook, so installing there would connect nothing.
    mkdirSync(env.CLAUDE_CONFIG_DIR ?? '', { recursive: true });
    const commented = '{\n  // mine\n  "model": "opus"\n}\n';
    writeFileSync(settings(), commented);
    const result = await agents(['install', 'claude-code']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /settings\.json is not valid JSON \(.+\); fix it first, nothing was changed/,
    );
    expect(readFileSync(settings(), 'utf8')).toBe(commented);
    expect(existsSync(`${settings()}.runwarden-install.json`)).toBe(false);
  });

  it('--scope project writes the project’s own local settings', async () => {
    const result = await agents(['install', 'claude-code', '--scope', 'project']);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(project, '.claude', 'settings.local.json'))).toBe(true);
    expect(existsSync(settings())).toBe(false);
  });
});

describe('Codex', () => {
  const config = () => join(env.CODEX_HOME ?? '', 'config.toml');
  const ORIGINAL = [
    'model = "o4"',
    '',
    '[[hooks.PermissionRequest]]',
    '[[hooks.PermissionRequest.hooks]]',
    'type = "command"',
    'command = "my-guard"',
    '',
  ].join('\n');

  it('appends its hooks with their trust; twice is once; uninstall restores the file byte for byte', async () => {
    mkdirSync(env.CODEX_HOME ?? '', { recursive: true });
    writeFileSync(config(), ORIGINAL);
    expect((await agents(['install', 'codex'])).code).toBe(0);
    const installed = readFileSync(config(), 'utf8');
    expect(installed.startsWith(ORIGINAL)).toBe(true);
    // The person's PermissionRequest group is group 0: Runwarden's is group 1, and trusted under that key.
    const command =
      /\[\[hooks\.PermissionRequest\.hooks\]\]\ntype = "command"\ncommand = ("[^\n]*agents hook codex[^\n]*")/.exec(
        installed,
      )?.[1];
    expect(command).toBeDefined();
    const key = `${config()}:permission_request:1:0`;
    expect(installed).toContain(
      `[hooks.state.${JSON.stringify(key)}]\ntrusted_hash = "${codexHookHash('permission_request', JSON.parse(command ?? '""') as string, 600)}"`,
    );
    expect((await agents(['install', 'codex'])).code).toBe(0);
    expect(readFileSync(config(), 'utf8')).toBe(installed);
    const status = await agents(['status', 'codex']);
    expect(status.code, status.stdout).toBe(0);

    expect((await agents(['uninstall', 'codex'])).code).toBe(0);
    expect(bytes(config())?.equals(Buffer.from(ORIGINAL))).toBe(true);
  });

  it('status reports a hook Codex would skip (its trust no longer matches)', async () => {
    expect((await agents(['install', 'codex'])).code).toBe(0);
    const text = readFileSync(config(), 'utf8');
    writeFileSync(config(), text.replace(/trusted_hash = "sha256:[0-9a-f]+"/, 'trusted_hash = "sha256:00"'));
    const status = await agents(['status', 'codex']);
    expect(status.code).toBe(1);
    expect(status.stdout).toContain('Codex skips the SessionStart hook');
  });

  it('keeps the tables Codex appends inside the marked block across re-install and uninstall', async () => {
    mkdirSync(env.CODEX_HOME ?? '', { recursive: true });
    writeFileSync(config(), ORIGINAL);
    expect((await agents(['install', 'codex'])).code).toBe(0);
    // What Codex 0.171 does at its first start: it rewrites the file and appends [tui] before the last comment.
    const tui = '[tui]\nscreen_reader_detection_done = true\n';
    const edited = readFileSync(config(), 'utf8').replace(/(# <<< runwarden agent hooks\n)$/, `\n${tui}$1`);
    writeFileSync(config(), edited);
    expect((await agents(['install', 'codex'])).code).toBe(0);
    const reinstalled = readFileSync(config(), 'utf8');
    expect(reinstalled).toContain(tui);
    expect(reinstalled.match(/agents hook codex/g)).toHaveLength(5);
    expect((await agents(['status', 'codex'])).code).toBe(0);

    const uninstalled = await agents(['uninstall', 'codex']);
    expect(uninstalled.code, uninstalled.stderr).toBe(0);
    const left = readFileSync(config(), 'utf8');
    expect(left).not.toContain('agents hook codex');
    expect(left).not.toContain('runwarden');
    expect(left).not.toContain('hooks.state');
    expect(left.startsWith(ORIGINAL)).toBe(true);
    expect(left).toContain(tui);
    const status = await agents(['status', 'codex', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ ok: true, value: [{ installed: false }] });
  });

  it('refuses a config that is not valid TOML with the sentence every agent uses, changing nothing', async () => {
    mkdirSync(env.CODEX_HOME ?? '', { recursive: true });
    writeFileSync(config(), 'model = \n');
    const result = await agents(['install', 'codex']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/config\.toml is not valid TOML \(.+\); fix it first, nothing was changed/);
    expect(readFileSync(config(), 'utf8')).toBe('model = \n');
  });

  it('refuses a config whose hooks are an inline array (TOML cannot mix both), changing nothing', async () => {
    mkdirSync(env.CODEX_HOME ?? '', { recursive: true });
    const inline = '[hooks]\nStop = [{ hooks = [{ type = "command", command = "x" }] }]\n';
    writeFileSync(config(), inline);
    const result = await agents(['install', 'codex']);
    expect(result.code).toBe(1);
    expect(readFileSync(config(), 'utf8')).toBe(inline);
  });
});

describe('pi', () => {
  const extension = () => join(env.PI_CODING_AGENT_DIR ?? '', 'extensions', 'runwarden.ts');

  it('writes its extension; twice is once; uninstall removes it', async () => {
    expect((await agents(['install', 'pi'])).code).toBe(0);
    const written = readFileSync(extension(), 'utf8');
    expect(written).toContain('pi.on("tool_call"');
    // pi's status line says where the question waits, and is cleared once the hook returns.
    expect(written).toContain(`const WAITING_LINE = ${JSON.stringify(WAITING_LINE)};`);
    expect(written).toContain('ctx.ui.setStatus("runwarden", WAITING_LINE)');
    expect(written).toContain('ctx.ui.setStatus("runwarden", undefined)');
    expect((await agents(['install', 'pi'])).code).toBe(0);
    expect(readFileSync(extension(), 'utf8')).toBe(written);
    expect((await agents(['status', 'pi'])).stdout).toContain('pi: connected');
    expect((await agents(['uninstall', 'pi'])).code).toBe(0);
    expect(existsSync(extension())).toBe(false);
  });
});

// Qwen Code and Gemini CLI share Claude Code's settings shape (hook-settings.ts): the same rules hold.
const JSON_AGENTS = [
  {
    agent: 'qwen-code',
    label: 'Qwen Code',
    settings: () => join(env.QWEN_HOME ?? '', 'settings.json'),
    project: () => join(project, '.qwen', 'settings.json'),
    waiting: { event: 'PermissionRequest', matcher: '*', timeout: 600 },
    events: ['SessionStart', 'UserPromptSubmit', 'PermissionRequest', 'PostToolUse', 'Stop', 'SessionEnd'],
    disable: { disableAllHooks: true },
  },
  {
    agent: 'gemini',
    label: 'Gemini CLI',
    settings: () => join(env.GEMINI_CLI_HOME ?? '', '.gemini', 'settings.json'),
    project: () => join(project, '.gemini', 'settings.json'),
    // Gemini CLI reads timeouts in milliseconds; its BeforeTool asks about the tools that change things.
    waiting: { event: 'BeforeTool', matcher: '^(run_shell_command|write_file|replace)$', timeout: 600_000 },
    events: ['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'AfterAgent', 'SessionEnd'],
    disable: { hooksConfig: { enabled: false } },
  },
] as const;

describe.each(JSON_AGENTS)('$label', (spec) => {
  type Hooks = Record<
    string,
    Array<{ matcher?: string; hooks: Array<{ command: string; timeout: number }> }>
  >;
  // The person's own file: a tab indent, their own hook on the waiting event, no newline at the end.
  const ORIGINAL = JSON.stringify(
    {
      model: { name: 'their-model' },
      hooks: {
        [spec.waiting.event]: [{ matcher: '.*', hooks: [{ type: 'command', command: 'my-guard' }] }],
      },
    },
    null,
    '\t',
  );

  it('merges with the person’s hooks; twice is once; status; uninstall restores the file byte for byte', async () => {
    mkdirSync(join(spec.settings(), '..'), { recursive: true });
    writeFileSync(spec.settings(), ORIGINAL);
    const first = await agents(['install', spec.agent]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`${spec.label} connected`);
    const installed = readFileSync(spec.settings(), 'utf8');
    const hooks = (JSON.parse(installed) as { hooks: Hooks }).hooks;
    expect(hooks[spec.waiting.event]?.[0]?.hooks[0]?.command).toBe('my-guard');
    const ours = hooks[spec.waiting.event]?.[1];
    expect(ours?.matcher).toBe(spec.waiting.matcher);
    expect(ours?.hooks[0]?.command).toContain(`agents hook ${spec.agent}`);
    expect(ours?.hooks[0]?.timeout).toBe(spec.waiting.timeout);
    // Gemini CLI shows a hook's name while it runs ("Executing Hook: …"); Qwen Code draws no line here.
    expect((ours?.hooks[0] as Record<string, unknown> | undefined)?.name).toBe(
      spec.agent === 'gemini' ? WAITING_LINE : undefined,
    );
    for (const event of spec.events)
      expect(hooks[event]?.at(-1)?.hooks[0]?.command, event).toContain(`agents hook ${spec.agent}`);
    expect(installed).toContain('\n\t"model"');

    const second = await agents(['install', spec.agent]);
    expect(second.stdout).toContain('nothing to change');
    expect(readFileSync(spec.settings(), 'utf8')).toBe(installed);
    const status = await agents(['status', spec.agent]);
    expect(status.code, status.stdout).toBe(0);
    expect(status.stdout).toContain(`${spec.label}: connected`);

    const removed = await agents(['uninstall', spec.agent]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(bytes(spec.settings())?.equals(Buffer.from(ORIGINAL))).toBe(true);
    expect(existsSync(`${spec.settings()}.runwarden-install.json`)).toBe(false);
    expect((await agents(['status', spec.agent])).stdout).toContain(`${spec.label}: not connected`);
  });

  it('keeps the agent’s own later settings across re-install and uninstall; status names a disabled file', async () => {
    expect((await agents(['install', spec.agent])).code).toBe(0);
    // The agent (or the person) writes its own settings into the file after the install.
    const edited = JSON.parse(readFileSync(spec.settings(), 'utf8')) as Record<string, unknown>;
    Object.assign(edited, { ui: { theme: 'dark' } }, spec.disable);
    writeFileSync(spec.settings(), JSON.stringify(edited, null, 2));
    const status = await agents(['status', spec.agent]);
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/runs no hook/);
    expect((await agents(['install', spec.agent])).code).toBe(0);
    expect((await agents(['uninstall', spec.agent])).code).toBe(0);
    expect(JSON.parse(readFileSync(spec.settings(), 'utf8'))).toEqual({
      ui: { theme: 'dark' },
      ...spec.disable,
    });
  });

  it('keeps a file with comments (JSONC) as it was: comments, commas and layout, byte for byte on uninstall', async () => {
    // The person's file as the agent accepts it: comments of both kinds, a trailing comma, CRLF line ends.
    const original = [
      '// my settings',
      '{',
      '    /* the model I use */',
      '    "model": { "name": "their-model" }, // keep this',
      '    "hooks": {',
      `        "${spec.waiting.event}": [`,
      '            // my own guard first',
      '            { "matcher": ".*", "hooks": [{ "type": "command", "command": "my-guard" }] },',
      '        ],',
      '    },',
      '}',
      '',
    ].join('\r\n');
    mkdirSync(join(spec.settings(), '..'), { recursive: true });
    writeFileSync(spec.settings(), original);
    const first = await agents(['install', spec.agent]);
    expect(first.code, first.stderr).toBe(0);
    const installed = readFileSync(spec.settings(), 'utf8');
    for (const line of ['// my settings', '/* the model I use */', '// keep this', '// my own guard first'])
      expect(installed).toContain(line);
    expect(installed).toContain('    "model": { "name": "their-model" }, // keep this\r\n');
    expect(installed.replaceAll('\r\n', '')).not.toContain('\n');
    expect(installed).toContain(`agents hook ${spec.agent}`);
    const status = await agents(['status', spec.agent]);
    expect(status.stdout).toContain(`${spec.label}: connected`);
    expect((await agents(['install', spec.agent])).stdout).toContain('nothing to change');
    expect(readFileSync(spec.settings(), 'utf8')).toBe(installed);
    expect((await agents(['uninstall', spec.agent])).code).toBe(0);
    expect(bytes(spec.settings())?.equals(Buffer.from(original))).toBe(true);

    // Edited since (the record no longer matches): only Runwarden's groups go, the comments stay.
    expect((await agents(['install', spec.agent])).code).toBe(0);
    writeFileSync(spec.settings(), `// added later\r\n${readFileSync(spec.settings(), 'utf8')}`);
    expect((await agents(['uninstall', spec.agent])).code).toBe(0);
    expect(readFileSync(spec.settings(), 'utf8')).toBe(`// added later\r\n${original}`);
  });

  it('refuses a file that is not JSON with the sentence every agent uses; --scope project', async () => {
    mkdirSync(join(spec.settings(), '..'), { recursive: true });
    writeFileSync(spec.settings(), '{ "model": ');
    const broken = await agents(['install', spec.agent]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(
      /settings\.json is not valid JSON \(.+\); fix it first, nothing was changed/,
    );
    expect(readFileSync(spec.settings(), 'utf8')).toBe('{ "model": ');
    expect(existsSync(`${spec.settings()}.runwarden-install.json`)).toBe(false);

    expect((await agents(['install', spec.agent, '--scope', 'project'])).code).toBe(0);
    expect(readFileSync(spec.project(), 'utf8')).toContain(`agents hook ${spec.agent}`);
    expect((await agents(['uninstall', spec.agent, '--scope', 'project'])).code).toBe(0);
    expect(existsSync(spec.project())).toBe(false);
  });
});

describe('OpenCode', () => {
  const plugin = () => join(env.XDG_CONFIG_HOME ?? '', 'opencode', 'plugin', 'runwarden.js');

  it('writes its plugin; twice is once; status; uninstall removes it; a file not its own is refused', async () => {
    expect((await agents(['install', 'opencode'])).code).toBe(0);
    const written = readFileSync(plugin(), 'utf8');
    expect(written).toContain('case "permission.asked":');
    expect(written).toContain('postSessionIdPermissionsPermissionId');
    expect(written).toContain('"agents", "hook", "opencode"');
    expect((await agents(['install', 'opencode'])).stdout).toContain('nothing to change');
    expect(readFileSync(plugin(), 'utf8')).toBe(written);
    expect((await agents(['status', 'opencode'])).stdout).toContain('OpenCode: connected');
    expect((await agents(['uninstall', 'opencode'])).code).toBe(0);
    expect(existsSync(plugin())).toBe(false);

    // A plugin of the person's own under that name is never written over, nor removed.
    writeFileSync(plugin(), 'export const Mine = async () => ({});\n');
    const refused = await agents(['install', 'opencode']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /runwarden\.js exists and is not Runwarden's; move it away first, nothing was changed/,
    );
    expect((await agents(['uninstall', 'opencode'])).code).toBe(0);
    expect(readFileSync(plugin(), 'utf8')).toBe('export const Mine = async () => ({});\n');
  });
});

it('refuses an unknown agent or action with a usage error', async () => {
  expect((await agents(['install', 'vim'])).code).toBe(2);
  expect((await agents(['frobnicate', 'pi'])).code).toBe(2);
});
