/**
 * Claude Code's AskUserQuestion as one Runwarden form and back (docs/AGENTS.md#multiple-choice-questions):
 * options keep their descriptions, a multi-select takes several picks and one answer in the person's own
 * words, labels that had to be sanitised go back as Claude wrote them, and picks are joined as Claude's own
 * dialog joins them.
 */
import { describe, expect, it } from 'vitest';
import { responseIssues } from '../../../shared/answer-rules';
import { parseHookPayload } from '../../../main/cli/agents/hook-payload';
import {
  agentAnswers,
  agentQuestionForm,
  agentQuestions,
  claudeList,
} from '../../../main/cli/agents/agent-question';

function payload(questions: unknown) {
  const parsed = parseHookPayload(
    JSON.stringify({
      hook_event_name: 'PreToolUse',
      session_id: 's',
      tool_name: 'AskUserQuestion',
      tool_input: { questions },
    }),
  );
  if (parsed === null) throw new Error('the payload did not parse');
  return parsed;
}

const QUESTIONS = [
  {
    question: 'Which features?',
    header: 'Features',
    multiSelect: true,
    options: [
      { label: 'Auth', description: 'Sign-in with \u001b[31mpasskeys\u001b[0m' },
      { label: 'Bold\u001b[1m', description: '' },
      { label: 'Bold\u001b[1m', description: 'the same label again' },
    ],
  },
  { question: 'Ship?', header: '', multiSelect: false, options: ['Yes', 'No'] },
  { question: 'no options', options: [] },
];

describe('AskUserQuestion as one form', () => {
  const questions = agentQuestions(payload(QUESTIONS));
  const form = agentQuestionForm('claude-code', questions, '/work/p');
  const fields = form.fields.map(({ field }) => field);

  it('keeps every question with options as one choice field, descriptions and all', () => {
    expect(form.title).toBe('Claude Code asks 2 questions: Which features?');
    expect(form.prompt).toBe('About: Features\nProject: /work/p');
    expect(fields.map((f) => [f.name, f.label, f.multi ?? false, f.allowOther])).toEqual([
      ['q1', 'Which features?', true, true],
      ['q2', 'Ship?', false, true],
    ]);
    const [features] = fields;
    // Escape sequences never reach the form; a label that reads the same as another is one option.
    expect(features?.options?.map((o) => o.label)).toHaveLength(2);
    expect(JSON.stringify(features)).not.toContain('\u001b');
    expect(features?.options?.[0]).toEqual({
      label: 'Auth',
      description: expect.stringContaining('passkeys'),
    });
  });

  it('takes picks and own words as the store checks them, and hands back Claude labels', () => {
    const shownBold = fields[0]?.options?.[1]?.label ?? '';
    const good = { q1: ['Auth', shownBold, 'Dark mode, later'], q2: 'Yes' };
    expect(responseIssues({ kind: 'input', choices: null, fields }, good)).toEqual([]);
    expect(agentAnswers(form, good)).toEqual({
      'Which features?': `Auth, Bold\u001b[1m, "Dark mode, later"`,
      'Ship?': 'Yes',
    });
    expect(responseIssues({ kind: 'input', choices: null, fields }, { q1: ['a', 'b'], q2: 'Yes' })).toEqual([
      'Field q1 takes one answer in your own words at most.',
    ]);
    expect(responseIssues({ kind: 'input', choices: null, fields }, { q1: 'Auth', q2: 'Yes' })).toEqual([
      `Field q1 must be a list of: Auth, ${shownBold}, or your own words.`,
    ]);
    expect(responseIssues({ kind: 'input', choices: null, fields }, { q1: [], q2: ' ' })).toEqual([
      'Field q1: pick at least one.',
      'Field q2 must be one of: Yes, No, or your own words.',
    ]);
  });

  it('joins picks as Claude Code does, quoting one that holds ", " or a quote', () => {
    expect(claudeList(['A', 'B'])).toBe('A, B');
    expect(claudeList(['A, B', 'say "hi"', 'C,D'])).toBe('"A, B", "say \\"hi\\"", C,D');
  });
});
