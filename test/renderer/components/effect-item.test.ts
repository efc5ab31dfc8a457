// oxlint-disable-next-line import/no-unassigned-import -- installs jsdom stubs before the components load
import '../dom-setup';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Effect, EffectResolution } from '../../../shared/domain';
import EffectItem from '../../../renderer/src/lib/components/EffectItem.svelte';
import type { RunDetailState } from '../../../renderer/src/lib/state/run-detail.svelte';

const AMBIGUOUS: Effect = {
  id: 7,
  runId: 'r1',
  attemptId: 1,
  type: 'http',
  idempotencyKey: 'charge-42',
  summary: 'Charge the card',
  status: 'ambiguous',
  attemptCount: 2,
  resolution: null,
  resolutionNote: null,
  resolvedBy: null,
  createdAt: 0,
  updatedAt: 0,
};

/** The part of the run detail the effect talks to: whether a command is running, and the resolve call. */
function fakeDetail(busy = false) {
  const calls: Array<{ id: number; resolution: EffectResolution; note: string }> = [];
  const detail = {
    busy,
    resolveEffect: async (effect: Effect, resolution: EffectResolution, note: string) => {
      calls.push({ id: effect.id, resolution, note });
    },
  } as unknown as RunDetailState;
  return { detail, calls };
}

describe('effect item', () => {
  it('refuses to resolve without a note, says why and puts the cursor in the note', async () => {
    const user = userEvent.setup();
    const { detail, calls } = fakeDetail();
    render(EffectItem, { props: { effect: AMBIGUOUS, detail, canResolve: true } });
    await user.click(screen.getByRole('button', { name: 'It happened…' }));
    expect(calls).toEqual([]);
    expect(screen.queryByRole('dialog')).toBeNull();
    const note = screen.getByRole('textbox', { name: 'How do you know? (required)' });
    expect(note.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('Say how you know (required).').id).toBe(note.getAttribute('aria-describedby'));
    expect(document.activeElement).toBe(note);
  });

  it('confirms first, naming the effect, the note and what the answer means; then resolves', async () => {
    const user = userEvent.setup();
    const { detail, calls } = fakeDetail();
    render(EffectItem, { props: { effect: AMBIGUOUS, detail, canResolve: true } });
    await user.type(screen.getByRole('textbox'), '   the bank shows no charge  ');
    await user.click(screen.getByRole('button', { name: 'It did not happen…' }));
    const dialog = screen.getByRole('dialog', { name: 'Record that it did not happen?' });
    expect(calls).toEqual([]);
    expect(dialog.textContent).toContain('Charge the card');
    expect(dialog.textContent).toContain('charge-42');
    expect(dialog.textContent).toContain('the bank shows no charge');
    expect(dialog.textContent).toContain('A retry runs it again');
    expect(dialog.textContent).toContain('A resume of this run refuses the same key');
    // The neutral control has focus: Enter goes back, it records nothing.
    expect(document.activeElement?.textContent).toBe('Go back');
    await user.keyboard('{Enter}');
    expect(calls).toEqual([]);
    expect(screen.queryByRole('dialog')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'It did not happen…' }));
    await user.click(screen.getByRole('button', { name: 'Record: it did not happen' }));
    expect(calls).toEqual([{ id: 7, resolution: 'not_applied', note: 'the bank shows no charge' }]);
    expect(screen.getByRole('textbox').getAttribute('aria-invalid')).toBeNull();
  });

  it('says what "it happened" means: a resume or retry skips it', async () => {
    const user = userEvent.setup();
    const { detail } = fakeDetail();
    render(EffectItem, { props: { effect: AMBIGUOUS, detail, canResolve: true } });
    await user.type(screen.getByRole('textbox'), 'seen in the ledger');
    await user.click(screen.getByRole('button', { name: 'It happened…' }));
    const dialog = screen.getByRole('dialog', { name: 'Record that it happened?' });
    expect(dialog.textContent).toContain('will not run it again');
  });

  it('offers no resolver when the person may not resolve, or the effect is not ambiguous', () => {
    const { detail } = fakeDetail();
    const first = render(EffectItem, { props: { effect: AMBIGUOUS, detail, canResolve: false } });
    expect(screen.queryByRole('group')).toBeNull();
    first.unmount();
    render(EffectItem, { props: { effect: { ...AMBIGUOUS, status: 'applied' }, detail, canResolve: true } });
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('disables both answers while a command runs', () => {
    const { detail } = fakeDetail(true);
    render(EffectItem, { props: { effect: AMBIGUOUS, detail, canResolve: true } });
    for (const button of screen.getAllByRole('button'))
      expect((button as HTMLButtonElement).disabled).toBe(true);
  });

  it('says how a resolved effect was settled, by whom and why', () => {
    const { detail } = fakeDetail();
    render(EffectItem, {
      props: {
        effect: {
          ...AMBIGUOUS,
          status: 'rejected',
          resolution: 'not_applied',
          resolvedBy: 'alice',
          resolutionNote: 'refunded',
        },
        detail,
        canResolve: true,
      },
    });
    const article = screen.getByRole('article', { name: 'Charge the card' });
    expect(article.textContent).toMatch(/Resolved\s*It did not happen \(said by alice\): refunded/);
    expect(screen.getByTestId('effect-status').textContent).toBe('did not happen');
    expect(article.textContent).not.toMatch(/rejected/);
  });
});
