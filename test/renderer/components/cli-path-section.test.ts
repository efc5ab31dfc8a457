// oxlint-disable-next-line import/no-unassigned-import -- installs jsdom stubs before the components load
import '../dom-setup';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import CliPathSection from '../../../renderer/src/lib/components/CliPathSection.svelte';
import type { RunwardenApi } from '../../../shared/contract';
import type { Result } from '../../../shared/errors';
import type { CliPathStatus } from '../../../shared/views';

const LINK = '/Users/ann/.local/bin/runwarden';

function status(installed: boolean, extra: Partial<CliPathStatus> = {}): CliPathStatus {
  return {
    available: true,
    target: LINK,
    installed,
    found: installed ? LINK : null,
    leadsHere: installed,
    message: installed
      ? `runwarden on the PATH (${LINK}) runs this app's CLI.`
      : 'No runwarden command on the PATH.',
    ...extra,
  };
}

/** Only the three cli:* methods; the section calls nothing else. */
function fakeApi(answers: {
  status: Result<CliPathStatus>;
  install?: Result<CliPathStatus>;
  uninstall?: Result<CliPathStatus>;
}) {
  const calls: string[] = [];
  const api = {
    getCliPathStatus: async () => (calls.push('status'), answers.status),
    installCliOnPath: async () => (calls.push('install'), answers.install ?? answers.status),
    uninstallCliOnPath: async () => (calls.push('uninstall'), answers.uninstall ?? answers.status),
  } as unknown as RunwardenApi;
  return { api, calls };
}

describe("Settings: Install 'runwarden' command in PATH", () => {
  it('shows the status, installs, then offers removal', async () => {
    const { api, calls } = fakeApi({
      status: { ok: true, value: status(false) },
      install: { ok: true, value: status(true) },
      uninstall: { ok: true, value: status(false) },
    });
    render(CliPathSection, { props: { api } });
    await waitFor(() =>
      expect(screen.getByTestId('cli-path-status').textContent).toBe('No runwarden command on the PATH.'),
    );
    expect(screen.getByText(LINK).closest('p')?.textContent).toBe(`Writes ${LINK}.`);

    await fireEvent.click(screen.getByRole('button', { name: "Install 'runwarden' command in PATH" }));
    await waitFor(() =>
      expect(screen.getByTestId('cli-path-status').textContent).toContain("runs this app's CLI"),
    );
    await fireEvent.click(screen.getByRole('button', { name: "Remove 'runwarden' command from PATH" }));
    await waitFor(() => screen.getByRole('button', { name: "Install 'runwarden' command in PATH" }));
    expect(calls).toEqual(['status', 'install', 'uninstall']);
  });

  it("shows a refusal (another app's runwarden) as an alert and keeps the status", async () => {
    const { api } = fakeApi({
      status: {
        ok: true,
        value: status(false, { found: LINK, message: 'runwarden on the PATH is another install.' }),
      },
      install: {
        ok: false,
        error: { code: 'CONFLICT', message: `${LINK} already exists and is not this app's runwarden.` },
      },
    });
    render(CliPathSection, { props: { api } });
    await fireEvent.click(await screen.findByRole('button', { name: "Install 'runwarden' command in PATH" }));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toContain('already exists'));
    expect(screen.getByTestId('cli-path-status').textContent).toBe(
      'runwarden on the PATH is another install.',
    );
  });

  it("offers nothing to install when runwarden already leads here through another link (the deb's /usr/bin)", async () => {
    const { api } = fakeApi({
      status: {
        ok: true,
        value: status(false, {
          found: '/usr/bin/runwarden',
          leadsHere: true,
          message: 'runwarden on the PATH (/usr/bin/runwarden) runs this app.',
        }),
      },
    });
    render(CliPathSection, { props: { api } });
    await waitFor(() =>
      expect(screen.getByTestId('cli-path-status').textContent).toContain('/usr/bin/runwarden'),
    );
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('offers no button where the app cannot install it (the AppImage)', async () => {
    const { api } = fakeApi({
      status: {
        ok: true,
        value: { ...status(false), available: false, target: null, message: 'Install the deb.' },
      },
    });
    render(CliPathSection, { props: { api } });
    await waitFor(() => expect(screen.getByTestId('cli-path-status').textContent).toBe('Install the deb.'));
    expect(screen.queryByRole('button')).toBeNull();
  });
});
