/**
 * QuickAnswerDialog.svelte on its own, over the real host (real-host.ts): the question's prompt, deadline and
 * default, one button per choice that answers it in the store, and what it says when the question is gone
 * or asks for more than a choice.
 */
import { cleanup, render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appContext } from '../../renderer/src/lib/state/app-context';
import QuickAnswerDialog from '../../renderer/src/lib/components/QuickAnswerDialog.svelte';
import type { Actor, InteractionField } from '../../shared/domain';
import { createRealHost, seedQuestion, type RealHost } from './real-host';
import { createApp } from './render-app';

const ELSEWHERE: Actor = { type: 'human', id: 'someone', surface: 'cli' };

let h: RealHost;
beforeEach(() => {
  h = createRealHost();
});
afterEach(() => {
  h.cleanup();
});

async function openFor(runId: string) {
  const { app } = createApp(h, '#/all');
  render(QuickAnswerDialog, { context: appContext(app) });
  await app.openQuickAnswer(runId);
  return app;
}

describe('quick answer dialog', () => {
  it('shows the prompt, deadline and default, and answers with the chosen button', async () => {
    const user = userEvent.setup();
    const { runId, interaction } = seedQuestion(
      h,
      { title: 'Release' },
      { defaultResponse: 'no', deadlineAt: h.now() + 5 * 60_000 },
    );
    const app = await openFor(runId);
    const dialog = await screen.findByRole('dialog', { name: 'Answer: Deploy to production?' });
    expect(dialog.textContent).toContain('Run Release');
    expect(dialog.textContent).toContain('Ship it?');
    expect(within(dialog).getByRole('timer').textContent).toBe('4m 59s left');
    expect(dialog.textContent).toMatch(/no\s*if nobody answers by the deadline/);
    const choices = within(within(dialog).getByRole('group', { name: 'Your answer' })).getAllByRole('button');
    expect(choices.map((b) => b.textContent?.replace(/\s+/g, ''))).toEqual(['yes', 'no(default)']);
    // The default is the primary button.
    expect(choices.map((b) => b.classList.contains('primary'))).toEqual([false, true]);
    await user.click(choices[0]!);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(app.quickAnswer.runId).toBeNull();
    const answered = h.store.getSnapshot(runId).interactions.find((i) => i.id === interaction.id);
    expect(answered).toMatchObject({ status: 'settled', response: 'yes' });
  });

  it('says there is no default when the question has none', async () => {
    const { runId } = seedQuestion(h);
    await openFor(runId);
    const dialog = await screen.findByRole('dialog', { name: 'Answer: Deploy to production?' });
    expect(dialog.textContent).toContain('none: without an answer the question expires');
  });

  it('says so when the question was answered elsewhere, and offers no choice', async () => {
    const { runId, interaction } = seedQuestion(h);
    // Someone answers it elsewhere (the CLI, another window) before the dialog opens.
    h.store.answerInteraction(interaction.id, {
      interactionRevision: interaction.revision,
      idempotencyKey: 'answered-elsewhere',
      payload: 'no',
      actor: ELSEWHERE,
    });
    await openFor(runId);
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('This run has no open question any more');
    expect(within(dialog).queryByRole('group', { name: 'Your answer' })).toBeNull();
  });

  it('sends a question with fields to the run’s own form', async () => {
    const { runId } = seedQuestion(
      h,
      {},
      {
        kind: 'input',
        title: 'Release notes',
        choices: undefined,
        fields: [{ name: 'notes', type: 'string' }],
      },
    );
    await openFor(runId);
    const dialog = await screen.findByRole('dialog', { name: 'Answer: Release notes' });
    expect(dialog.textContent).toContain('This question asks for fields or text: answer it in the run.');
    expect(within(dialog).queryByRole('group', { name: 'Your answer' })).toBeNull();
    expect(within(dialog).getByRole('button', { name: 'Open the run' })).toBeTruthy();
  });

  const runner: InteractionField = {
    name: 'q1',
    type: 'choice',
    label: 'Which test runner?',
    required: true,
    options: [{ label: 'Vitest', description: 'fast, ESM first' }, { label: 'Jest' }],
  };

  it('answers a single choice field with one pick, each option with its description; Enter picks nothing', async () => {
    const user = userEvent.setup();
    const { runId, interaction } = seedQuestion(
      h,
      {},
      {
        kind: 'input',
        title: 'Which test runner?',
        choices: undefined,
        fields: [{ ...runner, allowOther: true }],
      },
    );
    await openFor(runId);
    const dialog = await screen.findByRole('dialog', { name: 'Answer: Which test runner?' });
    const group = within(dialog).getByRole('group', { name: 'Your answer' });
    const buttons = within(group).getAllByRole('button');
    expect(buttons.map((b) => b.textContent?.replace(/\s+/g, ' ').trim())).toEqual([
      'Vitest fast, ESM first',
      'Jest',
    ]);
    // Its own words are given in the run's form: said, not guessed.
    expect(dialog.textContent).toContain('To answer in your own words, open the run.');
    // Focus starts on no answer: Enter sends nothing.
    expect(document.activeElement?.tagName).toBe('H2');
    await user.keyboard('{Enter}');
    expect(h.store.getInteraction(interaction.id).status).toBe('pending');
    await user.click(buttons[0]!);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(h.store.getInteraction(interaction.id)).toMatchObject({
      status: 'settled',
      response: { q1: 'Vitest' },
    });
  });

  it('sends several picks and several questions to the run, saying which', async () => {
    const multi = seedQuestion(
      h,
      { title: 'multi' },
      { kind: 'input', title: 'Which checks?', choices: undefined, fields: [{ ...runner, multi: true }] },
    );
    await openFor(multi.runId);
    let dialog = await screen.findByRole('dialog', { name: 'Answer: Which checks?' });
    expect(dialog.textContent).toContain('This question takes several picks: answer it in the run.');
    expect(within(dialog).queryByRole('group', { name: 'Your answer' })).toBeNull();
    cleanup();
    const two = seedQuestion(
      h,
      { title: 'two' },
      {
        kind: 'input',
        title: 'Two questions',
        choices: undefined,
        fields: [runner, { ...runner, name: 'q2', label: 'Which linter?' }],
      },
    );
    await openFor(two.runId);
    dialog = await screen.findByRole('dialog', { name: 'Answer: Two questions' });
    expect(dialog.textContent).toContain('This asks 2 questions at once: answer them in the run.');
    expect(within(dialog).queryByRole('group', { name: 'Your answer' })).toBeNull();
  });
});
