/* The one place that says how the host page addresses a seat played on this page. */

/** The API path of `action` ("me" or "pick") for the hosted `seat` of the public view.

    Today the table finds the seat by its name; when the public view gives each seat an
    "id", this becomes `/host/seats/${encodeURIComponent(seat.id)}/${action}`. */
export function hostedSeatPath(seat, action) {
  return `/host/seats/${encodeURIComponent(seat.name)}/${action}`;
}
