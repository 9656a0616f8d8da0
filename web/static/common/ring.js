/* The track is a ring of spaces: the two sums every page does with it. */

/** The number of spaces on the view's track. */
export const trackLength = (view) => (view && view.track_length) || 32;

/** How many spaces forward from `from` to `to` on a ring of `length` (0..length-1). */
export function forward(from, to, length) {
  return ((to - from) % length + length) % length;
}

/** Where space `space` (may be fractional, mid-slide) sits on a circle drawn clockwise
    from the top: [x, y] around the centre (cx, cy) at `radius`.
    @param {number} space  @param {number} length  @param {number} cx  @param {number} cy
    @param {number} radius  @returns {[number, number]} */
export function ringPoint(space, length, cx, cy, radius) {
  const angle = -Math.PI / 2 + (2 * Math.PI * space) / length;
  return [cx + radius * Math.cos(angle), cy + radius * Math.sin(angle)];
}
