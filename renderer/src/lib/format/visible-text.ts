/**
 * Untrusted text as the window shows it: bidi controls and invisible characters read as `<U+202E>`
 * (docs/WINDOW.md#text-from-runs), the same rule as the CLI's. For display only, never for a value sent back.
 */
export { showInvisible as visibleText } from '$shared/terminal-text';
