#!/usr/bin/env node
/**
 * What `npm run dist:release` checks before it builds: the metadata a release ships is real or absent, never a
 * placeholder. `dpkg -s`, the Windows installer's publisher and the app's About show it, and the release feed
 * (electron-builder.yml `publish`) is where every installed copy looks for updates
 * (docs/DESKTOP-CHECKLIST.md#updates).
 *
 *   node scripts/release-check.js [PROJECT_DIR]
 *
 * Refuses (exit 1, one line per problem): `example.com`/`.org`/`.net` anywhere in package.json or
 * electron-builder.yml; no `homepage` or no `author.email` (the deb's Homepage and Maintainer); no release feed
 * (package.json `repository` for the GitHub provider, or a `url` for a generic one). Exit 0: nothing to say.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The problems with a project's release metadata; empty when it may be released. */
export function releaseProblems(packageText, builderText) {
  const problems = [];
  for (const [name, text] of [
    ['package.json', packageText],
    ['electron-builder.yml', builderText],
  ]) {
    const placeholder = /[\w.@+-]*example\.(com|org|net)\b[\w./-]*/i.exec(text);
    if (placeholder !== null)
      problems.push(`${name} holds the placeholder ${placeholder[0]}: put the real value or remove it`);
  }
  let pkg = {};
  try {
    pkg = JSON.parse(packageText);
  } catch {
    problems.push('package.json is not valid JSON');
  }
  if (typeof pkg.homepage !== 'string' || !pkg.homepage.startsWith('https://')) {
    problems.push("package.json has no https homepage (the deb's Homepage, the installer's link)");
  }
  const email = typeof pkg.author === 'object' && pkg.author !== null ? pkg.author.email : undefined;
  if (typeof email !== 'string' || !/^[^\s@<>]+@[^\s@<>]+\.[a-z]{2,}$/i.test(email)) {
    problems.push("package.json author has no email (the deb's Maintainer)");
  }
  const generic =
    /^\s*provider:\s*generic\b/m.test(builderText) && /^\s*url:\s*https:\/\//m.test(builderText);
  const repository = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
  if (!generic && (typeof repository !== 'string' || repository === '')) {
    problems.push('no release feed: set package.json repository (GitHub Releases) or a generic publish url');
  }
  return problems;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = resolve(process.argv[2] ?? join(fileURLToPath(import.meta.url), '..', '..'));
  const problems = releaseProblems(
    readFileSync(join(dir, 'package.json'), 'utf8'),
    readFileSync(join(dir, 'electron-builder.yml'), 'utf8'),
  );
  for (const problem of problems) process.stderr.write(`dist:release: ${problem}\n`);
  process.exitCode = problems.length === 0 ? 0 : 1;
}
