/**
 * A run's recorded environment (docs/CLI.md#what-exec-records): `exec` records its command's variables so
 * a retry runs the same work; the value of a secret-looking variable is never stored, only its name, and a
 * retry takes it from the environment of the process that runs it (the worker).
 */

/** Recorded environment: name → value, or null for a secret-looking name whose value was not stored. */
export type RecordedEnvironment = Record<string, string | null>;

/** Names whose values are never stored (case-insensitive, anywhere in the name). */
const SECRET_PARTS = [
  'TOKEN',
  'SECRET',
  'PASSWORD',
  'PASSWD',
  'PASSPHRASE',
  'KEY',
  'CREDENTIAL',
  'AUTH',
  'COOKIE',
  'SESSION',
  'PRIVATE',
];

/**
 * Words that make a name secret when they stand alone between underscores (`GITHUB_PAT`, `MYSQL_PWD`,
 * `SENTRY_DSN`, `DB_PASS`): short words a substring rule would find inside harmless names. `PWD` alone is
 * the working folder, not a password.
 */
const SECRET_WORDS = new Set(['PAT', 'PWD', 'PASS', 'DSN', 'PSK', 'OTP', 'PIN']);

/** A URL with a password in its userinfo (`postgres://app:hunter2@db/app`): stored redacted, whatever its name. */
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:[^\s/@]+@/i;

/**
 * A person's own extra secret names: this variable, in the environment being recorded, lists them (commas or
 * spaces; `*` matches any run of characters, so `ACME_*` covers every ACME_ variable).
 */
export const EXTRA_SECRET_NAMES_VARIABLE = 'RUNWARDEN_SECRET_NAMES';

/**
 * Terminal-session variables: they describe the terminal the person typed in (a tmux pane, a shell's prompt
 * and depth, the folder before this one), not the work. Never recorded, never replayed, never listed as a
 * difference (docs/CLI.md#what-exec-records).
 */
const SESSION_VARIABLES = new Set([
  'TMUX',
  'TMUX_PANE',
  'STY',
  'WINDOW',
  'WINDOWID',
  'PS1',
  'PS2',
  'PS3',
  'PS4',
  'PROMPT_COMMAND',
  'OLDPWD',
  'SHLVL',
  'TERM_SESSION_ID',
  'ITERM_SESSION_ID',
  'TERM_PROGRAM',
  'TERM_PROGRAM_VERSION',
  'KONSOLE_DBUS_SESSION',
  'KONSOLE_DBUS_WINDOW',
  'VTE_VERSION',
  'COLUMNS',
  'LINES',
  'SSH_TTY',
  'XDG_SESSION_ID',
]);

export function isSessionVariable(name: string): boolean {
  return SESSION_VARIABLES.has(name);
}

/**
 * Per-claim variables the runner sets itself (docs/CLI.md#runner-contract): a retry gets its own. And `_`,
 * which a shell sets to each command it starts.
 */
const RUNNER_SET = new Set([
  '_',
  'RUNWARDEN_STORE',
  'RUNWARDEN_RUN_ID',
  'RUNWARDEN_RUN_TOKEN',
  'RUNWARDEN_LEASE_GENERATION',
  'RUNWARDEN_NODE',
]);

export function isSecretName(name: string, extra: readonly string[] = []): boolean {
  const upper = name.toUpperCase();
  if (SECRET_PARTS.some((part) => upper.includes(part))) return true;
  if (upper !== 'PWD' && upper.split(/[_-]/).some((word) => SECRET_WORDS.has(word))) return true;
  return extra.some((pattern) => globMatches(pattern.toUpperCase(), upper));
}

function globMatches(pattern: string, name: string): boolean {
  const source = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*');
  return new RegExp(`^${source}$`).test(name);
}

/** The extra secret names an environment declares (EXTRA_SECRET_NAMES_VARIABLE). */
export function extraSecretNames(env: Readonly<Record<string, string | null | undefined>>): string[] {
  return (env[EXTRA_SECRET_NAMES_VARIABLE] ?? '').split(/[\s,]+/).filter((name) => name !== '');
}

/** Is this variable's value never stored: a secret-looking name, or a URL carrying a password? */
export function isSecretVariable(name: string, value: string | null, extra: readonly string[] = []): boolean {
  if (name === EXTRA_SECRET_NAMES_VARIABLE) return false;
  return isSecretName(name, extra) || (value !== null && URL_WITH_PASSWORD.test(value));
}

/**
 * The one rule for what a store keeps of an environment, whoever writes it: terminal-session variables
 * dropped, secret values (by name, by the person's extra names, or a URL with a password) kept as null.
 */
export function redactEnvironment(env: Readonly<Record<string, string | null>>): RecordedEnvironment {
  const extra = extraSecretNames(env);
  const kept: RecordedEnvironment = {};
  for (const [name, value] of Object.entries(env)) {
    if (isSessionVariable(name)) continue;
    kept[name] = isSecretVariable(name, value, extra) ? null : value;
  }
  return kept;
}

/** What `exec` records of an environment: every variable but the runner's own, secret values dropped. */
export function recordEnvironment(env: Readonly<Record<string, string | undefined>>): RecordedEnvironment {
  const all: Record<string, string> = {};
  for (const name of Object.keys(env).toSorted()) {
    const value = env[name];
    if (value === undefined || RUNNER_SET.has(name)) continue;
    all[name] = value;
  }
  return redactEnvironment(all);
}

export interface RetryEnvironment {
  env: Record<string, string>;
  /** Secret-looking names whose values came from `here`. */
  fromHere: string[];
  /** Secret-looking names recorded but not set `here`: the retry runs without them. */
  missing: string[];
}

/** The environment a retry runs with: the recorded one, secret values taken from `here`. */
export function environmentForRetry(
  recorded: RecordedEnvironment,
  here: Readonly<Record<string, string | undefined>>,
): RetryEnvironment {
  const env: Record<string, string> = {};
  const fromHere: string[] = [];
  const missing: string[] = [];
  for (const [name, value] of Object.entries(recorded)) {
    if (isSessionVariable(name)) continue;
    if (value !== null) {
      env[name] = value;
      continue;
    }
    const own = here[name];
    if (own === undefined) missing.push(name);
    else {
      env[name] = own;
      fromHere.push(name);
    }
  }
  return { env, fromHere, missing };
}

export interface EnvironmentDifference {
  name: string;
  /** The value the retry runs with; null for a secret name (taken from the worker). */
  recorded: string | null;
  /** The value in the environment compared with; null when it is not set there. */
  here: string | null;
}

/**
 * Variables whose value in a retry would differ from `here`: recorded values that differ (or are unset
 * here), and every secret name (its value comes from the worker, whatever it is there). Variables set here
 * but not recorded are not listed: the retry does not see them.
 */
export function environmentDifferences(
  recorded: RecordedEnvironment,
  here: Readonly<Record<string, string | undefined>>,
): EnvironmentDifference[] {
  const differences: EnvironmentDifference[] = [];
  for (const [name, value] of Object.entries(recorded)) {
    if (isSessionVariable(name)) continue;
    const own = here[name] ?? null;
    if (value === null || value !== own) differences.push({ name, recorded: value, here: own });
  }
  return differences;
}

/** Secret-looking names in a recorded environment (their values were never stored). */
export function secretNames(recorded: RecordedEnvironment | undefined): string[] {
  return Object.entries(recorded ?? {})
    .filter(([, value]) => value === null)
    .map(([name]) => name);
}
