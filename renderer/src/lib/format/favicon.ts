/**
 * The window's icon and title carry how many runs need you, so a background tab still says so. The icon is an
 * SVG data URL (the CSP allows `img-src data:`), built from numbers only: no run text goes into it.
 */

/** "(3) Runwarden" when runs need you, else "Runwarden". */
export function windowTitle(needsYou: number): string {
  return needsYou > 0 ? `(${needsYou > 99 ? '99+' : needsYou}) Runwarden` : 'Runwarden';
}

/** The favicon as an SVG document: the mark, and a count badge when runs need you. */
export function faviconSvg(needsYou: number): string {
  const count = Math.max(0, Math.floor(needsYou));
  const mark =
    '<rect x="2" y="2" width="28" height="28" rx="7" fill="#2f5fd0"/>' +
    '<path d="M9 10h14M9 16h14M9 22h9" stroke="#fff" stroke-width="3" stroke-linecap="round"/>';
  if (count === 0) return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">${mark}</svg>`;
  const text = count > 9 ? '9+' : String(count);
  const badge =
    '<circle cx="23" cy="9" r="9" fill="#b3261e"/>' +
    `<text x="23" y="13" font-family="sans-serif" font-size="${text.length > 1 ? 10 : 12}" font-weight="700" text-anchor="middle" fill="#fff">${text}</text>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">${mark}${badge}</svg>`;
}

export function faviconDataUrl(needsYou: number): string {
  return `data:image/svg+xml,${encodeURIComponent(faviconSvg(needsYou))}`;
}
