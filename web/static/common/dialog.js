/* Modal dialogs on <dialog>: showModal() makes the page behind inert, Tab and Shift+Tab
   stay inside (wrapping round), Escape closes, and focus goes back to what had it. */

const FOCUSABLE = "button, [href], input, select, textarea, [tabindex]:not([tabindex='-1'])";

function focusables(dialog) {
  return Array.from(dialog.querySelectorAll(FOCUSABLE))
    .filter((node) => !node.disabled && node.getClientRects().length > 0);
}

/** Wire `dialog` once; onClose(returnValue) runs however it closes (button, Escape, code).
    Focus goes back to what had it before; if that cannot take it any more (a card just
    played), to fallback() when given.  Returns {open(focusTarget), close(value), isOpen()}. */
export function modal(dialog, onClose, fallback) {
  let opener = null;

  dialog.addEventListener("keydown", (event) => {
    if (event.key !== "Tab") return;
    const items = focusables(dialog);
    if (!items.length) { event.preventDefault(); return; }
    const first = items[0];
    const last = items[items.length - 1];
    const inside = dialog.contains(document.activeElement);
    if (event.shiftKey && (!inside || document.activeElement === first)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (!inside || document.activeElement === last)) {
      event.preventDefault();
      first.focus();
    }
  });

  dialog.addEventListener("close", () => {
    if (onClose) onClose(dialog.returnValue);
    const back = opener;
    opener = null;
    if (back && back.isConnected && back !== document.body) back.focus({ preventScroll: true });
    if (document.activeElement !== back || back === document.body) {
      const other = fallback ? fallback() : null;
      if (other) other.focus({ preventScroll: true });
    }
  });

  return {
    /** Open (if closed) and focus `focusTarget` or the first control inside. */
    open(focusTarget) {
      if (!dialog.open) {
        opener = document.activeElement;
        dialog.returnValue = "";
        dialog.showModal();
      }
      const target = focusTarget || focusables(dialog)[0];
      if (target) target.focus({ preventScroll: true });
    },
    close(value) {
      if (dialog.open) dialog.close(value || "");
    },
    isOpen: () => dialog.open,
  };
}
