/** Types of the helpers scripts/start.js exports (for its tests; `npm start` runs the .js under plain Node). */
export type Env = Record<string, string | undefined>;
export declare function electronLaunch(options: {
  electronPath: string;
  projectRoot: string;
  env: Env;
  args: string[];
}): { command: string; args: string[]; env: Env };
export declare function electronMissingMessage(electronVersion: string, cause: string): string;
export declare function isMainModule(
  moduleUrl: string,
  argv1: string | undefined,
  realpath?: (path: string) => string,
): boolean;
export declare function locateElectron(req: (id: string) => unknown, electronVersion: string): string;
export declare function main(argv?: string[]): Promise<number>;
export interface StartFs {
  readFile(path: string): string;
  stat(path: string): { uid: number; mode: number };
  readdir(path: string): string[];
  realpath(path: string): string;
}
export declare const realFs: StartFs;
export declare function rootProblem(options: {
  platform: NodeJS.Platform;
  uid: number | undefined;
}): string | null;
export declare function sandboxProblem(options: {
  platform: NodeJS.Platform;
  electronPath: string;
  fs?: StartFs;
}): string | null;
export declare function sandboxRemedy(helper: string, binary: string): string;
