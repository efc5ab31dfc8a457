/** The short name of a project folder from its canonical path. */
export function projectShortName(canonicalPath: string): string {
  const parts = canonicalPath.split(/[\\/]+/).filter((p) => p !== '');
  return parts.at(-1) ?? canonicalPath;
}
