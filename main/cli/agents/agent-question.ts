/**
 * Claude Code's own multiple-choice question (`AskUserQuestion`, through `PreToolUse`) as one Runwarden form,
 * and the person's answers in Claude Code's own shape (docs/AGENTS.md#multiple-choice-questions). Each of the
 * call's questions is a choice field of the same form (q1, q2, …): its options with their descriptions,
 * several picks where Claude asked `multiSelect`, and an answer in the person's own words, as Claude's own
 * "Type something" row takes. Everything shown is sanitised; the answers go back with Claude's labels.
 */
import type { FieldOption, InteractionField } from '../../../shared/domain';
import { fitText } from '../../../shared/text-caps';
import { sanitizeLine, sanitizeText } from '../../../shared/terminal-text';
import type { AgentName } from '../../store/agent-sessions';
import { AGENT_LABELS } from '../../store/agent-sessions';
import type { HookPayload } from './hook-payload';

export interface AgentOption {
  label: string;
  description: string;
}

/** One question of an AskUserQuestion call, as Claude Code sent it. */
export interface AgentQuestion {
  question: string;
  header: string;
  options: AgentOption[];
  multiSelect: boolean;
}

/** The questions of an AskUserQuestion call; entries that are not a question with options are left out. */
export function agentQuestions(payload: HookPayload): AgentQuestion[] {
  const questions = payload.toolInput.questions;
  if (!Array.isArray(questions)) return [];
  const out: AgentQuestion[] = [];
  for (const entry of questions) {
    if (entry === null || typeof entry !== 'object') continue;
    const q = entry as Record<string, unknown>;
    if (typeof q.question !== 'string' || q.question === '' || !Array.isArray(q.options)) continue;
    const options: AgentOption[] = [];
    for (const option of q.options as unknown[]) {
      const o = typeof option === 'string' ? { label: option } : (option as Record<string, unknown> | null);
      if (typeof o?.label !== 'string' || o.label === '') continue;
      options.push({ label: o.label, description: typeof o.description === 'string' ? o.description : '' });
    }
    if (options.length === 0) continue;
    out.push({
      question: q.question,
      header: typeof q.header === 'string' ? q.header : '',
      options,
      multiSelect: q.multiSelect === true,
    });
  }
  return out;
}

/** The form's field for each question, in order, with the label each shown option stands for. */
export interface AgentQuestionField {
  question: AgentQuestion;
  field: InteractionField;
  /** Shown (sanitised) label → Claude's own label. */
  labels: Map<string, string>;
}

export interface AgentQuestionForm {
  title: string;
  prompt: string;
  fields: AgentQuestionField[];
}

const MAX_OPTIONS = 20;

export function agentQuestionForm(
  agent: AgentName,
  questions: AgentQuestion[],
  projectPath: string,
): AgentQuestionForm {
  const fields = questions.map((question, i): AgentQuestionField => {
    const labels = new Map<string, string>();
    const options: FieldOption[] = [];
    for (const option of question.options) {
      const shown = fitText(sanitizeLine(option.label), 'title');
      // Two labels that read the same once sanitised would be one option: the first one stands.
      if (shown.trim() === '' || labels.has(shown) || options.length >= MAX_OPTIONS) continue;
      labels.set(shown, option.label);
      const description = fitText(sanitizeText(option.description), 'detail');
      options.push(description === '' ? { label: shown } : { label: shown, description });
    }
    const field: InteractionField = {
      name: `q${i + 1}`,
      type: 'choice',
      label: fitText(sanitizeLine(question.question), 'title'),
      required: true,
      options,
      allowOther: true,
    };
    if (question.multiSelect) field.multi = true;
    return { question, field, labels };
  });
  const headers = questions.map((q) => sanitizeLine(q.header)).filter((h) => h !== '');
  const lines = [
    ...(headers.length > 0 ? [`About: ${headers.join(', ')}`] : []),
    `Project: ${sanitizeLine(projectPath)}`,
  ];
  return {
    title: agentQuestionTitle(agent, questions),
    prompt: fitText(lines.join('\n'), 'prompt'),
    fields,
  };
}

/** The form's title: the question, or the first of several ("Claude Code asks 2 questions: …"). */
export function agentQuestionTitle(agent: AgentName, questions: AgentQuestion[]): string {
  const first = sanitizeLine(questions[0]?.question ?? '');
  const asks = questions.length > 1 ? `asks ${questions.length} questions` : 'asks';
  return fitText(`${AGENT_LABELS[agent]} ${asks}: ${first}`, 'title');
}

/**
 * The person's answers (the form's response: q1 → a label or their own words; a list for a multi-select)
 * as Claude Code's `answers`: question text → answer text, Claude's labels back in place of the shown ones,
 * a multi-select's picks joined as Claude Code joins them. Null when the response does not fit the form
 * (the store checked it, so only a form changed under the hook).
 */
export function agentAnswers(form: AgentQuestionForm, response: unknown): Record<string, string> | null {
  if (response === null || typeof response !== 'object' || Array.isArray(response)) return null;
  const values = response as Record<string, unknown>;
  const answers: Record<string, string> = {};
  for (const { question, field, labels } of form.fields) {
    const value = values[field.name];
    const claude = (shown: string): string => labels.get(shown) ?? shown;
    if (typeof value === 'string') answers[question.question] = claude(value);
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string'))
      answers[question.question] = claudeList(value.map(claude));
    else return null;
  }
  return answers;
}

/**
 * A multi-select's answer as Claude Code's own dialog writes it: the picks (own words last) joined by ", ",
 * a pick that itself holds ", " or a double quote written as a JSON string.
 */
export function claudeList(picks: readonly string[]): string {
  return picks
    .map((pick) => (pick.includes(', ') || pick.includes('"') ? JSON.stringify(pick) : pick))
    .join(', ');
}

/** AskUserQuestion answered: the tool runs with the person's answers (`updatedInput.answers`). */
export function askUserQuestionDecision(
  payload: HookPayload,
  answers: Record<string, string>,
): Record<string, unknown> {
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      updatedInput: { ...payload.toolInput, answers },
    },
  };
}
