/* The one place that says how the host page addresses a seat played on this page. */

/** The API path of `action` ("me" or "pick") for the hosted `seat` of the public view.

    Seats are addressed by their id, never by name: a player may be called "a/b" or "..". */
export function hostedSeatPath(seat, action) {
  return `/host/seats/${encodeURIComponent(seat.id)}/${action}`;
}
