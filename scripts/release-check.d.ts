/** The problems with a project's release metadata (package.json and electron-builder.yml texts); empty when it may be released. */
export function releaseProblems(packageText: string, builderText: string): string[];
