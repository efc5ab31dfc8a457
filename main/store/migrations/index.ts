import { migration0001 } from './0001-initial';
import { migration0002 } from './0002-view-counts';
import { migration0003 } from './0003-run-search';
import { migration0004 } from './0004-owner-indexes';
import { migration0005 } from './0005-search-upkeep';
import { migration0006 } from './0006-owner-liveness';
import { migration0007 } from './0007-run-logs';
import { migration0008 } from './0008-effect-processes';
import { migration0009 } from './0009-question-askers';
import { migration0010 } from './0010-agent-sessions';
import { migration0011 } from './0011-host-effects-agent-runs';
import { migration0012 } from './0012-run-counts-in-code';
import { migration0013 } from './0013-request-keys-per-project';
import { migration0014 } from './0014-effect-performer';
import { migration0015 } from './0015-enclosing-runs';
import { migration0016 } from './0016-more-agents';
import { migration0017 } from './0017-notification-subjects';
import type { Migration } from './migration';

export type { Migration, MigrationReport } from './migration';

/** Every migration, in order. `user_version` = the number of the last one applied. */
export const MIGRATIONS: readonly Migration[] = [
  migration0001,
  migration0002,
  migration0003,
  migration0004,
  migration0005,
  migration0006,
  migration0007,
  migration0008,
  migration0009,
  migration0010,
  migration0011,
  migration0012,
  migration0013,
  migration0014,
  migration0015,
  migration0016,
  migration0017,
];

export const SUPPORTED_SCHEMA_VERSION = MIGRATIONS.length;
