/* What the board shows now.  board.js owns the one Board (newBoard) and passes it to
   every part that draws it; none of them keeps one of its own.

   Name-keyed parts are Maps: a player may be called "__proto__" or "toString". */

/** @typedef {import("../common/api.js").View} View */
/** @typedef {{rhino: number | null, positions: Map<string, number>, minus: Map<string, number>,
      rounds: number, dung: number[]}} Shown */
/** @typedef {{step: {kind: string, events: any[], seconds: number, round: number},
      view: View}} Queued */

/** @typedef {{view: View | null, latest: View | null, table: View | null,
      shown: Shown | null, queue: Queued[], playing: boolean, round: number | null,
      generation: number,
      cards: {round: number, cards: Record<string, number>, kali: number} | null,
      hit: string | null, flashHeap: number | null}} Board */

/** A board with nothing shown yet (board.js makes the page's one).  @returns {Board} */
export function newBoard() {
  return {
    view: null,       // what every part of the page draws now: the view of the step being
                      // animated, else the newest (the table's, or a replay's board over it)
    latest: null,     // the newest view, drawn once no step is being animated
    table: null,      // the table's own view (board/replay.js)
    shown: null,      // what the ring shows now: {rhino, positions, minus, rounds, dung}
    queue: [],        // steps come in but not yet begun: {step, view}; a step that has
                      // one behind it is drawn at once, never animated (none waits)
    playing: false,
    round: null,      // the round of the step being animated (the header and the ring's)
    generation: 0,    // grows when the board is drawn afresh: an animation of an older
                      // generation ends at once
    cards: null,      // the cards of the round being played, for badges
    hit: null,        // the figure key just hit (ring.js figureKey)
    flashHeap: null,
  };
}

/** The shown state of a view: where everything stands, with no replay.
    @param {View} view  @returns {Shown} */
export function snapshot(view) {
  const minus = new Map();
  for (const seat of view.seats || []) minus.set(seat.name, seat.minus_points);
  return {
    rhino: view.rhino,
    positions: new Map(Object.entries(view.positions || {})),
    minus,
    rounds: (view.history || []).length,
    dung: (view.dung || []).slice(),
  };
}
