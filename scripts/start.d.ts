/** Types of the helpers scripts/start.js exports (for its tests; `npm start` runs the .js under plain Node). */
export declare const NATIVE_BINDING_ENV: 'RUNWARDEN_NATIVE_BINDING';
export declare const ELECTRON_HEADERS_URL: string;
export interface BuildTarget {
  electronVersion: string;
  platform: NodeJS.Platform;
  arch: string;
}
export interface BuildStamp extends BuildTarget {
  betterSqliteVersion: string;
}
export type Env = Record<string, string | undefined>;
export type RunSync = (command: string, args: string[], options: { cwd: string; env?: Env }) => number;
export declare function nativeCacheDir(projectRoot: string, electronVersion: string): string;
export declare function nativeBindingPath(projectRoot: string, electronVersion: string): string;
export declare function buildStamp(stamp: BuildStamp): BuildStamp;
export declare function stampMatches(existing: unknown, wanted: BuildStamp): boolean;
export declare function electronBuildEnv(
  env: Env,
  target: Pick<BuildTarget, 'electronVersion' | 'arch'>,
): Env;
export declare function prebuildInstallArgs(target: BuildTarget): string[];
export declare function nodeGypArgs(target: Pick<BuildTarget, 'electronVersion' | 'arch'>): string[];
export declare function copyFilter(packageDir: string): (source: string) => boolean;
export declare function electronLaunch(options: {
  electronPath: string;
  projectRoot: string;
  bindingPath: string;
  env: Env;
  args: string[];
}): { command: string; args: string[]; env: Env };
export declare function ensureNativeBinding(
  options: BuildTarget & {
    projectRoot: string;
    require: { resolve(id: string): string };
    env?: Env;
    run?: RunSync;
    log?: (message: string) => void;
  },
): string;
export declare function main(argv?: string[]): Promise<number>;
