/* Player names are data: "__proto__", "constructor" or "toString" are fine names, so a
   lookup by name never reads an object's inherited properties and never writes with
   obj[name] = ... (that would set the prototype for "__proto__"). */

/** Is `key` an own property of `obj` (not inherited from Object.prototype)? */
export const hasOwn = (obj, key) =>
  obj !== null && obj !== undefined && Object.prototype.hasOwnProperty.call(obj, key);

/** obj[key] if obj has it as its own property, else `fallback`. */
export const own = (obj, key, fallback) => (hasOwn(obj, key) ? obj[key] : fallback);

/** A JSON object keyed by name (positions, minus points) as a Map. */
export const nameMap = (obj) => new Map(obj ? Object.entries(obj) : []);

/** The public view's seat called `name`, or null. */
export function seatOf(view, name) {
  return ((view && view.seats) || []).find((seat) => seat.name === name) || null;
}

/** The colour of `name`'s figure ("natural" for a name not at the table). */
export function colourOf(view, name) {
  const seat = seatOf(view, name);
  return seat ? seat.colour : "natural";
}

/** Two letters for a figure on the ring. */
export function initials(name) {
  const letters = Array.from(String(name).trim());
  return (letters[0] || "?").toUpperCase() + (letters[1] || "");
}
