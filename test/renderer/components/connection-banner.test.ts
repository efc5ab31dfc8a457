// oxlint-disable-next-line import/no-unassigned-import -- installs jsdom stubs before the components load
import '../dom-setup';
import { render, screen } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import { describe, expect, it } from 'vitest';
import ConnectionBanner from '../../../renderer/src/lib/components/ConnectionBanner.svelte';
import { ConnectionState } from '../../../renderer/src/lib/api/connection-state.svelte';

function setup() {
  const connection = new ConnectionState({ disconnectedAfterMs: 60_000 });
  const view = render(ConnectionBanner, { props: { connection } });
  return { connection, view };
}

describe('connection banner', () => {
  it('shows nothing in the desktop app', () => {
    const { view } = setup();
    expect(view.container.textContent?.trim()).toBe('');
  });

  it('says Live, then Reconnecting with countdowns paused, then Disconnected as an alert', () => {
    const { connection } = setup();
    connection.begin();
    connection.opened();
    flushSync();
    expect(screen.getByRole('status', { name: 'Connection' }).textContent).toContain('Live');
    connection.lost();
    flushSync();
    expect(screen.getByRole('status', { name: 'Connection' }).textContent).toMatch(
      /Reconnecting.*countdowns are paused/s,
    );
    connection.phase = 'disconnected';
    flushSync();
    const alert = screen.getByRole('alert', { name: 'Connection' });
    expect(alert.textContent).toMatch(/Disconnected/);
    expect(alert.textContent).toMatch(/countdowns\s+and\s+ages\s+are\s+paused/);
    expect(alert.textContent).toMatch(/actions\s+cannot\s+reach\s+the\s+store/);
  });

  it('covers the page with a modal "session expired — open the new URL" that Escape does not close', () => {
    const { connection } = setup();
    connection.begin();
    connection.opened();
    connection.expired();
    flushSync();
    const dialog = screen.getByRole('dialog', { name: 'Session expired — open the new URL' });
    expect(dialog.hasAttribute('open')).toBe(true);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Session expired — open the new URL');
    const cancel = new Event('cancel', { cancelable: true });
    dialog.dispatchEvent(cancel);
    expect(cancel.defaultPrevented).toBe(true);
    expect(screen.queryByText('Live')).toBeNull();
  });
});
