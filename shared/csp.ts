/**
 * The Content-Security-Policy of the UI, the same in the Electron window (meta tag injected at build time
 * plus a response header) and in browser mode (`runwarden serve` sends it as a header). A plain string so
 * every runtime can import it (docs/ARCHITECTURE.md#parts).
 *
 * No remote origin anywhere, no inline or eval'd script, no plugins, no frames, no forms (Electron
 * security checklist items 7 and 13). Inline *styles* stay allowed: Svelte and the virtual list set
 * `style` attributes, and a style cannot run code.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
  "frame-src 'none'",
  "worker-src 'none'",
].join('; ');

/**
 * The policy as an HTTP header. `frame-ancestors` is only honoured in a header (a meta tag would make
 * Chromium log an error), so it is added here and not in the meta tag.
 */
export const CONTENT_SECURITY_POLICY_HEADER = `${CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`;
