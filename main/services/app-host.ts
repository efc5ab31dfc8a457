/**
 * Creates the host services over one store: handlers, sweeper, notification rules and the change feed.
 * Used by the Electron main process and by `runwarden serve`.
 */
import type { AppHost, AppHostOptions } from './host-types';

export function createAppHost(options: AppHostOptions): AppHost {
  void options;
  throw new Error('createAppHost: not implemented yet');
}
