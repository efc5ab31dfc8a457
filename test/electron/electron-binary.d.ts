/** Types of test/electron/electron-binary.js (plain JS so run.js can use it under Node without a build). */
export declare function installedElectron(projectRoot: string, env?: NodeJS.ProcessEnv): string | null;
