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
    await user.click(screen.getByRole('button', { name: 'It happened' }));
    expect(calls).toEqual([]);
    const note = screen.getByRole('textbox', { name: 'How do you know? (required)' });
    expect(note.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('Say how you know (required).').id).toBe(note.getAttribute('aria-describedby'));
    expect(document.activeElement).toBe(note);
  });

  it('resolves with the trimmed note, either way', async () => {
    const user = userEvent.setup();
    const { detail, calls } = fakeDetail();
    render(EffectItem, { props: { effect: AMBIGUOUS, detail, canResolve: true } });
    await user.type(screen.getByRole('textbox'), '   the bank shows no charge  ');
    await user.click(screen.getByRole('button', { name: 'It did not happen' }));
    expect(calls).toEqual([{ id: 7, resolution: 'not_applied', note: 'the bank shows no charge' }]);
    expect(screen.getByRole('textbox').getAttribute('aria-invalid')).toBeNull();
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
    expect(article.textContent).toMatch(/Resolved\s*It did not happen\s*\(alice\): refunded/);
  });
});
