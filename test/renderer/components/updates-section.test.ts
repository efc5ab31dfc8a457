// oxlint-disable-next-line import/no-unassigned-import -- installs jsdom stubs before the components load
import '../dom-setup';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import UpdatesSection from '../../../renderer/src/lib/components/UpdatesSection.svelte';
import type { RunwardenApi } from '../../../shared/contract';
import type { UpdateStatus } from '../../../shared/views';

function status(extra: Partial<UpdateStatus> = {}): UpdateStatus {
  return {
    phase: 'idle',
    currentVersion: '0.1.0',
    plan: { kind: 'install', reason: null },
    latestVersion: null,
    releaseNotes: null,
    downloadUrl: null,
    message: null,
    checkedAt: null,
    restartRequested: false,
    ...extra,
  };
}

/** The three updates:* methods over a list of answers for `updates:status`, the last one repeated. */
function fakeApi(statuses: UpdateStatus[], answers: { check?: UpdateStatus; restart?: UpdateStatus } = {}) {
  const calls: string[] = [];
  let read = 0;
  const api = {
    getUpdateStatus: async () => {
      calls.push('status');
      const value = statuses[Math.min(read, statuses.length - 1)] as UpdateStatus;
      read += 1;
      return { ok: true, value };
    },
    checkForUpdates: async () => (calls.push('check'), { ok: true, value: answers.check ?? status() }),
    restartToUpdate: async () => (calls.push('restart'), { ok: true, value: answers.restart ?? status() }),
  } as unknown as RunwardenApi;
  return { api, calls };
}

const NOTES = '## Fixes\n\n- the hook <script>window.hacked = 1</script> now **reaches** Runwarden\n';

describe('Settings: Updates', () => {
  it('where there are no updates it says why and offers nothing to press', async () => {
    const reason = 'Updates are not available in a browser: this page is served by runwarden serve.';
    const { api, calls } = fakeApi([status({ phase: 'off', plan: { kind: 'off', reason } })]);
    render(UpdatesSection, { props: { api } });
    await waitFor(() => expect(screen.getByTestId('update-status').textContent?.trim()).toBe(reason));
    expect(screen.getByTestId('update-version').textContent).toBe('0.1.0');
    expect(screen.queryByRole('button')).toBeNull();
    expect(calls).toEqual(['status']);
  });

  it('"Check now" follows the check until the download is ready; the notes are text; restart waits', async () => {
    const ready = status({
      phase: 'ready',
      latestVersion: '0.1.1',
      releaseNotes: NOTES,
      message: 'Restarts to update when no question is open and you are away.',
      checkedAt: Date.UTC(2026, 11, 7, 10, 0),
    });
    const { api, calls } = fakeApi(
      [status(), status({ phase: 'downloading', latestVersion: '0.1.1' }), ready],
      {
        check: status({ phase: 'checking' }),
        restart: {
          ...ready,
          restartRequested: true,
          message: 'A question is open: Runwarden restarts to update once it is answered.',
        },
      },
    );
    render(UpdatesSection, { props: { api } });
    await waitFor(() =>
      expect(screen.getByTestId('update-status').textContent?.trim()).toBe('Not checked yet.'),
    );
    await fireEvent.click(screen.getByRole('button', { name: 'Check now' }));
    await waitFor(() =>
      expect(screen.getByTestId('update-status').textContent?.trim()).toBe('Checking for updates…'),
    );
    expect(screen.getByRole('button', { name: 'Check now' }).getAttribute('aria-disabled')).toBe('true');
    await waitFor(
      () => expect(screen.getByTestId('update-status').textContent).toContain('0.1.1 is downloaded'),
      {
        timeout: 5_000,
      },
    );
    const notes = screen.getByTestId('update-notes');
    expect(notes.querySelector('h3')?.textContent).toBe('What 0.1.1 changes');
    expect(notes.querySelector('strong')?.textContent).toBe('reaches');
    // Markup in the notes is shown as the text it is: no element, nothing run.
    expect(notes.querySelector('script')).toBeNull();
    expect(notes.textContent).toContain('<script>window.hacked = 1</script>');
    expect((window as unknown as { hacked?: number }).hacked).toBeUndefined();

    await fireEvent.click(screen.getByRole('button', { name: 'Restart to update' }));
    await waitFor(() =>
      expect(screen.getByTestId('update-status').textContent).toContain(
        'Runwarden restarts to update once it is answered',
      ),
    );
    expect(screen.queryByRole('button', { name: 'Restart to update' })).toBeNull();
    expect(calls).toEqual(['status', 'check', 'status', 'status', 'restart']);
  });

  it('a release only told of gives the download address as text to copy', async () => {
    const url = 'https://github.com/someone/runwarden/releases/tag/v0.2.0';
    const { api } = fakeApi([
      status({
        phase: 'available',
        plan: { kind: 'notify', reason: 'The deb is updated by installing the new package: download it.' },
        latestVersion: '0.2.0',
        downloadUrl: url,
        message: 'The deb is updated by installing the new package: download it.',
      }),
    ]);
    render(UpdatesSection, { props: { api } });
    await waitFor(() => expect(screen.getByText(url).tagName).toBe('CODE'));
    expect(screen.queryByRole('link')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Restart to update' })).toBeNull();
  });
});
