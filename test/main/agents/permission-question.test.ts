/**
 * allow-always says what it allows, and never changes the session's mode (docs/AGENTS.md#permission-requests):
 * Claude Code's suggestions as Claude Code 2.1 sends them for a shell call outside the project.
 */
import { describe, expect, it } from 'vitest';
import { parseHookPayload } from '../../../main/cli/agents/hook-payload';
import { permissionDecision, permissionQuestion } from '../../../main/cli/agents/permission-question';

const SUGGESTIONS = [
  {
    type: 'addRules',
    rules: [{ toolName: 'Bash', ruleContent: 'touch:*' }],
    behavior: 'allow',
    destination: 'localSettings',
  },
  { type: 'addDirectories', directories: ['/tmp/elsewhere'], destination: 'session' },
  { type: 'setMode', mode: 'acceptEdits', destination: 'session' },
];

function payload(suggestions: unknown[]) {
  const parsed = parseHookPayload(
    JSON.stringify({
      hook_event_name: 'PermissionRequest',
      session_id: 's',
      tool_name: 'Bash',
      tool_input: { command: 'touch /tmp/elsewhere/x' },
      permission_suggestions: suggestions,
    }),
  );
  if (parsed === null) throw new Error('the payload did not parse');
  return parsed;
}

describe('allow-always', () => {
  it('lists each rule it would remember, and leaves the mode change out of it', () => {
    const question = permissionQuestion('claude-code', payload(SUGGESTIONS), '/work/project');
    expect(question.choices).toEqual(['allow', 'deny', 'allow-always', 'allow-and-switch-to-acceptEdits']);
    expect(question.prompt).toContain('allow-always also:');
    expect(question.prompt).toContain('- allow from now on: Bash(touch:*) (localSettings)');
    expect(question.prompt).toContain('- add working directories: /tmp/elsewhere (session)');
    const rules = question.prompt.slice(question.prompt.indexOf('allow-always also:')).split('\n\n')[0];
    expect(rules).not.toMatch(/setMode|acceptEdits/);
    expect(question.prompt).not.toContain('setMode');
    const decision = permissionDecision(payload(SUGGESTIONS), 'allow-always') as {
      hookSpecificOutput: { decision: { behavior: string; updatedPermissions: Array<{ type: string }> } };
    };
    expect(decision.hookSpecificOutput.decision.behavior).toBe('allow');
    expect(decision.hookSpecificOutput.decision.updatedPermissions.map((rule) => rule.type)).toEqual([
      'addRules',
      'addDirectories',
    ]);
  });

  it('offers a mode change as its own explicit choice, saying what it switches', () => {
    const question = permissionQuestion('claude-code', payload(SUGGESTIONS), '/work/project');
    expect(question.choices).toEqual(['allow', 'deny', 'allow-always', 'allow-and-switch-to-acceptEdits']);
    expect(question.prompt).toContain(
      'allow-and-switch-to-acceptEdits: allow this call and switch the whole session to acceptEdits mode (session): Claude Code then makes file edits without asking.',
    );
    const decision = (answer: string) =>
      (permissionDecision(payload(SUGGESTIONS), answer) as { hookSpecificOutput: { decision: object } })
        .hookSpecificOutput.decision;
    // The mode choice passes back the mode change alone; allow and allow-always never carry it.
    expect(decision('allow-and-switch-to-acceptEdits')).toEqual({
      behavior: 'allow',
      updatedPermissions: [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }],
    });
    expect(decision('allow')).toEqual({ behavior: 'allow' });
    const only = payload([{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }]);
    expect(permissionQuestion('claude-code', only, '/p').choices).toEqual([
      'allow',
      'deny',
      'allow-and-switch-to-acceptEdits',
    ]);
  });

  it('shows the command as code, with a fence longer than any backticks in it', () => {
    const parsed = parseHookPayload(
      JSON.stringify({
        hook_event_name: 'PermissionRequest',
        session_id: 's',
        tool_name: 'Bash',
        tool_input: { command: 'echo ```x``` `y`' },
      }),
    );
    if (parsed === null) throw new Error('the payload did not parse');
    expect(permissionQuestion('claude-code', parsed, '/p').prompt).toContain(
      'Command:\n````\necho ```x``` `y`\n````',
    );
  });

  it('never offers allow-always or a mode to Codex, whose hook refuses updatedPermissions', () => {
    expect(permissionQuestion('codex', payload(SUGGESTIONS), '/p').choices).toEqual(['allow', 'deny']);
  });
});
