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
  it('lists each rule it would remember, and leaves the mode change out', () => {
    const question = permissionQuestion('claude-code', payload(SUGGESTIONS), '/work/project');
    expect(question.choices).toEqual(['allow', 'deny', 'allow-always']);
    expect(question.prompt).toContain('allow-always also:');
    expect(question.prompt).toContain('- allow from now on: Bash(touch:*) (localSettings)');
    expect(question.prompt).toContain('- add working directories: /tmp/elsewhere (session)');
    expect(question.prompt).not.toMatch(/setMode|acceptEdits/);
    const decision = permissionDecision(payload(SUGGESTIONS), 'allow-always') as {
      hookSpecificOutput: { decision: { behavior: string; updatedPermissions: Array<{ type: string }> } };
    };
    expect(decision.hookSpecificOutput.decision.behavior).toBe('allow');
    expect(decision.hookSpecificOutput.decision.updatedPermissions.map((rule) => rule.type)).toEqual([
      'addRules',
      'addDirectories',
    ]);
  });

  it('is not offered when the only suggestion is a mode change', () => {
    const only = payload([{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }]);
    expect(permissionQuestion('claude-code', only, '/p').choices).toEqual(['allow', 'deny']);
    const decision = permissionDecision(only, 'allow') as { hookSpecificOutput: { decision: object } };
    expect(decision.hookSpecificOutput.decision).toEqual({ behavior: 'allow' });
  });
});
