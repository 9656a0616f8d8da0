/* localStorage that never throws: in private mode the page still works, it just forgets. */

/** @param {string} key  @returns {string | null} */
export function storageGet(key) {
  try { return window.localStorage.getItem(key); } catch (e) { return null; }
}

/** Store `value` under `key`; null removes it.
    @param {string} key  @param {string | null} value */
export function storageSet(key, value) {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch (e) { /* private mode */ }
}
