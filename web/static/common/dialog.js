/* Modal dialogs on <dialog>: showModal() makes the page behind inert, Tab and Shift+Tab
   stay inside (wrapping round), Escape closes, and focus goes back to what had it.
   A phone too old for <dialog> (iOS before 15.4) gets the same dialog, just not inert. */

const FOCUSABLE = "button, [href], input, select, textarea, [tabindex]:not([tabindex='-1'])";

function focusables(dialog) {
  return Array.from(dialog.querySelectorAll(FOCUSABLE))
    .filter((node) => !node.disabled && node.getClientRects().length > 0);
}

/** Wire `dialog` once; onClose(returnValue) runs however it closes (button, Escape, code).
    Focus goes back to what had it before; if that cannot take it any more (a card just
    played), to fallback() when given.  Returns {open(focusTarget), close(value), isOpen()}. */
export function modal(dialog, onClose, fallback) {
  /** @type {HTMLElement | null} */
  let opener = null;
  let opened = false;  // opened, and its closing not yet handled
  const native = typeof dialog.showModal === "function";

  dialog.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !native) { close(""); return; }
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

  const isOpen = () => dialog.hasAttribute("open");

  /* Once per opening, however it closed.  A native dialog's "close" event comes in a
     task of its own, after the dialog has closed: the page may open it again before
     (two quick taps), and that late event must not end the new opening. */
  function closed() {
    if (!opened) return;
    opened = false;
    if (onClose) onClose(dialog.returnValue);
    const back = opener;
    opener = null;
    if (back && back.isConnected && back !== document.body) back.focus({ preventScroll: true });
    if (document.activeElement !== back || back === document.body) {
      const other = fallback ? fallback() : null;
      if (other) other.focus({ preventScroll: true });
    }
  }

  dialog.addEventListener("close", () => { if (!isOpen()) closed(); });

  function close(value) {
    if (!isOpen()) return;
    if (native) dialog.close(value || "");
    else {
      dialog.returnValue = value || "";
      dialog.removeAttribute("open");
    }
    closed();
  }

  if (!native) {  // what <form method="dialog"> does with its buttons' values, by hand
    dialog.addEventListener("click", (event) => {
      const button = event.target.closest("form button[value]");
      if (!button) return;
      event.preventDefault();
      close(button.value);
    });
  }

  return {
    /** Open (if closed) and focus `focusTarget` or the first control inside. */
    open(focusTarget) {
      if (!isOpen()) {
        closed();  // closed by the browser (Escape, a form button), its event still to come
        opened = true;
        opener = /** @type {HTMLElement | null} */ (document.activeElement);
        dialog.returnValue = "";
        if (native) dialog.showModal();
        else dialog.setAttribute("open", "");
      }
      const target = focusTarget || focusables(dialog)[0];
      if (target) target.focus({ preventScroll: true });
    },
    close,
    isOpen,
  };
}
