/**
 * Toasts stay in sight, clickable and heard while a modal dialog is open (docs/WINDOW.md#toasts). A modal
 * `<dialog>` is drawn in the top layer over everything else and makes everything outside it inert, a live
 * region too (the browser's accessibility tree drops it). So the toast stack, a `popover="manual"` element, is
 * moved into the topmost open modal while there is one, and back to its place when the last one closes; each
 * move shows it again, which puts it on top of the top layer, above the dialog and its backdrop.
 */

let layer: HTMLElement | null = null;
let home: HTMLElement | null = null;
const openDialogs: HTMLDialogElement[] = [];

/** The stack and the element it lives in while no dialog is open; answers how to let them go. */
export function attachToastLayer(element: HTMLElement, place: HTMLElement): () => void {
  layer = element;
  home = place;
  settle();
  return () => {
    if (layer === element) layer = home = null;
  };
}

/** A modal dialog was opened with showModal(): the toasts go into it. */
export function dialogOpened(dialog: HTMLDialogElement): void {
  openDialogs.push(dialog);
  settle();
}

/** That dialog closed (or left the page): the toasts go to the dialog below it, else home. */
export function dialogClosed(dialog: HTMLDialogElement): void {
  const at = openDialogs.lastIndexOf(dialog);
  if (at >= 0) openDialogs.splice(at, 1);
  settle();
}

function settle(): void {
  if (layer === null || home === null) return;
  const top = openDialogs.findLast((d) => d.isConnected && d.open);
  const parent = top ?? home;
  if (layer.parentNode !== parent) parent.append(layer);
  // Moving an open popover closes it; showing it (again) also raises it above what opened since.
  // Without the Popover API (an engine that still hides `[popover]` by its style sheet, such as jsdom) the stack
  // is a plain fixed element: drop the attribute so it is shown at all.
  if (typeof layer.showPopover !== 'function') {
    layer.removeAttribute('popover');
    return;
  }
  if (layer.matches(':popover-open')) layer.hidePopover();
  layer.showPopover();
}
