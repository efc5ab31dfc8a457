/**
 * Channel and push-event names, with the API method each channel becomes. Dependency-free on purpose: the
 * sandboxed preload bundles this file alone (docs/ARCHITECTURE.md#parts), and so does the browser-mode client.
 */

/** `area:verb` channel → the method name the renderer calls. One method per channel (docs/ARCHITECTURE.md#conventions). */
export const CHANNEL_METHODS = {
  'projects:list': 'listProjects',
  'runs:list': 'listRuns',
  'runs:detail': 'getRunDetail',
  'runs:log': 'getRunLog',
  'runs:openLog': 'openRunLog',
  'runs:previewCancel': 'previewCancel',
  'runs:cancel': 'cancelRun',
  'runs:requestCancel': 'requestCancel',
  'runs:requestPause': 'requestPause',
  'runs:pause': 'pauseRun',
  'runs:resume': 'resumeRun',
  'runs:retry': 'retryRun',
  'runs:stopCommand': 'stopCommand',
  'runs:bulk': 'bulkAction',
  'effects:resolve': 'resolveEffect',
  'interactions:answer': 'answerInteraction',
  'attention:summary': 'getAttention',
  'notifications:list': 'listNotifications',
  'notifications:markRead': 'markNotificationsRead',
  'settings:get': 'getSettings',
  'settings:set': 'setSettings',
  'store:info': 'getStoreInfo',
  'store:doctor': 'runDoctor',
  'cli:status': 'getCliPathStatus',
  'cli:install': 'installCliOnPath',
  'cli:uninstall': 'uninstallCliOnPath',
  'updates:status': 'getUpdateStatus',
  'updates:check': 'checkForUpdates',
  'updates:restart': 'restartToUpdate',
  'remotes:list': 'listRemotes',
  'remotes:add': 'addRemote',
  'remotes:remove': 'removeRemote',
  'remotes:call': 'callRemote',
} as const;

export type Channel = keyof typeof CHANNEL_METHODS;
export type ApiMethod = (typeof CHANNEL_METHODS)[Channel];
export const CHANNELS = Object.keys(CHANNEL_METHODS) as Channel[];

/** Pushes from main to the renderer. Declared, never a generic bus (docs/ARCHITECTURE.md#conventions). */
export const PUSH_EVENTS = ['changed', 'attention', 'open-run', 'store-status', 'log', 'remotes'] as const;
export type PushEvent = (typeof PUSH_EVENTS)[number];

/** The IPC channel prefix for pushes, so request and push names can never collide. */
export const PUSH_CHANNEL_PREFIX = 'push:';

/**
 * The page tells main which pushes it listens to (the events, as a list), each time that set changes: main
 * holds a run to open until the page listens for `open-run`, instead of guessing from load events.
 */
export const LISTENING_CHANNEL = 'app:listening';
