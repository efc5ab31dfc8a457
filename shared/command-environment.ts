/**
 * A run's recorded environment (docs/CLI.md#what-exec-records): `exec` records its command's variables so
 * a retry runs the same work; the value of a secret-looking variable is never stored, only its name, and a
 * retry takes it from the environment of the process that runs it (the worker).
 */

/** Recorded environment: name → value, or null for a secret-looking name whose value was not stored. */
export type RecordedEnvironment = Record<string, string | null>;

/** Names whose values are never stored (case-insensitive, anywhere in the name). */
const SECRET_PARTS = ['TOKEN', 'SECRET', 'PASSWORD', 'KEY', 'CREDENTIAL', 'AUTH', 'COOKIE', 'SESSION'];

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

export function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  return SECRET_PARTS.some((part) => upper.includes(part));
}

/** What `exec` records of an environment: every variable but the runner's own, secret values dropped. */
export function recordEnvironment(env: Readonly<Record<string, string | undefined>>): RecordedEnvironment {
  const recorded: RecordedEnvironment = {};
  for (const name of Object.keys(env).toSorted()) {
    const value = env[name];
    if (value === undefined || RUNNER_SET.has(name)) continue;
    recorded[name] = isSecretName(name) ? null : value;
  }
  return recorded;
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
