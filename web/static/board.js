/* The board page for a TV: the ring of spaces with every figure, Kali, Mambo and
   the heaps; each resolved round's events played one after another with a line of
   narration; the join QR code, the score table, and at the end the winners and a
   chart of minus points over the rounds. */
"use strict";

(() => {
  const { el, t } = K;
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  const params = new URLSearchParams(window.location.search);
  const paceOverride = Number(params.get("pace")) || null;
  const CX = 500;
  const CY = 500;
  const R = 400;
  const PILE = "M -17 11 Q -18 1 -9 1 Q -12 -8 -3 -10 Q -2 -18 5 -15 Q 11 -9 8 -1"
    + " Q 18 0 17 11 Z";

  const state = {
    view: null,
    gameId: null,
    shown: null,      // what the ring shows now: {rhino, positions, minus, rounds, dung}
    queue: [],        // events still to play
    queuedRounds: 0,  // rounds shown or waiting in the queue
    playing: false,
    cards: null,      // the cards of the round being played, for badges
    hit: null,
    flashHeap: null,
    pressBase: 0,     // "next" presses already used up (step pacing)
  };

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function pause() {
    if (paceOverride) return paceOverride;
    const lights = state.view && state.view.lights;
    return lights && lights.pause_ms ? lights.pause_ms : 900;
  }

  /** In step pacing the board waits for the same "next" (host page or the board's
      button) as the strip, one press per strip step. */
  function stepping() {
    const lights = state.view && state.view.lights;
    return !paceOverride && Boolean(lights) && lights.pacing === "step";
  }

  function presses() {
    const lights = state.view && state.view.lights;
    return (lights && lights.next_presses) || 0;
  }

  async function gate() {
    if (!stepping()) {
      await wait(pause());
      return;
    }
    while (stepping() && presses() <= state.pressBase) await wait(100);
    state.pressBase += 1;
  }

  /** The strip flashes a run of penalties for one hit as one step. */
  function lastOfPenaltyRun(events, index) {
    const ev = events[index];
    const next = events[index + 1];
    return !next || next.type !== "penalty" || next.figure !== ev.figure
      || next.cause !== ev.cause;
  }

  function seatColour(name) {
    const seat = ((state.view && state.view.seats) || []).find((s) => s.name === name);
    return seat ? seat.colour : "natural";
  }

  // --------------------------------------------------------------- geometry
  function point(space, radius) {
    const L = state.view.track_length || 32;
    const angle = -Math.PI / 2 + (2 * Math.PI * space) / L;
    return [CX + radius * Math.cos(angle), CY + radius * Math.sin(angle)];
  }

  function spaceRadius() {
    const L = state.view.track_length || 32;
    return Math.max(4, Math.min(34, (Math.PI * R) / L * 0.8));
  }

  // ------------------------------------------------------------------ ring
  function drawRing() {
    const ring = $("ring");
    const view = state.view;
    const shown = state.shown;
    const title = ring.querySelector("title");
    ring.textContent = "";
    ring.appendChild(title);
    if (!view) return;
    const L = view.track_length || 32;
    const rs = spaceRadius();
    const heaps = new Set(shown ? shown.dung : []);
    const spaces = svg("g", { class: "spaces" });
    for (let i = 0; i < L; i += 1) {
      const [x, y] = point(i, R);
      const heap = heaps.has(i);
      if (heap) {
        spaces.appendChild(svg("circle", { cx: x, cy: y, r: rs + 7,
          class: `heap${state.flashHeap === i ? " flash" : ""}`, "data-heap": i }));
      }
      spaces.appendChild(svg("circle", { cx: x, cy: y, r: rs, class: heap ? "space dung-space" : "space" }));
      if (heap) {
        const k = (rs / 30).toFixed(3);
        spaces.appendChild(svg("path", { class: "pile", d: PILE,
          transform: `translate(${x.toFixed(1)} ${y.toFixed(1)}) scale(${k})` }));
      }
      if (L <= 64 || i % 5 === 0) {
        const [nx, ny] = point(i, R - rs - 24);
        spaces.appendChild(svg("text", { x: nx, y: ny, class: "space-no" }, String(i)));
      }
    }
    ring.appendChild(spaces);
    drawCentre(ring);
    if (!shown) return;
    const figures = svg("g", { class: "figures" });
    if (shown.rhino !== null && shown.rhino !== undefined) {
      figures.appendChild(figure("mambo", "M", shown.rhino, "mambo", t("figure.mambo")));
    }
    for (const [name, space] of Object.entries(shown.positions || {})) {
      if (name === "Kali") {
        figures.appendChild(figure("kali", "K", space, "kali", t("figure.kali")));
      } else {
        figures.appendChild(figure(`c-${seatColour(name)}`, K.initials(name), space, name, name));
      }
    }
    ring.appendChild(figures);
    if (state.cards) drawBadges(ring);
  }

  function figure(cls, label, space, key, name) {
    const [x, y] = point(space, R);
    const rs = spaceRadius();
    const group = svg("g", {
      class: `fig ${cls}${state.hit === key ? " hit" : ""}`,
      transform: `translate(${x.toFixed(1)} ${y.toFixed(1)})`,
      "data-figure": key,
      "data-space": space,
    }, svg("title", {}, name),
    svg("circle", { r: rs * 0.95, style: cls.startsWith("c-") ? "fill: var(--c)" : "" }),
    svg("text", { "font-size": Math.max(8, rs * 0.72).toFixed(0) }, label));
    return group;
  }

  function drawBadges(ring) {
    const group = svg("g", { class: "badges" });
    const shown = state.shown;
    const rs = spaceRadius();
    const entries = Object.entries(state.cards.cards || {});
    entries.push(["Kali", state.cards.kali]);
    for (const [name, card] of entries) {
      const space = shown.positions[name];
      if (space === undefined) continue;
      const [x, y] = point(space, R + rs + 30);
      const cls = name === "Kali" ? "kali" : `c-${seatColour(name)}`;
      group.appendChild(svg("g", { class: `fig ${cls}`, transform: `translate(${x.toFixed(1)} ${y.toFixed(1)})` },
        svg("rect", { x: -16, y: -20, width: 32, height: 40, rx: 6,
          style: name === "Kali" ? "fill: var(--c-kali); stroke: #f2f2f2; stroke-width: 2"
            : "fill: var(--c); stroke: #000; stroke-width: 2" }),
        svg("text", { "font-size": 20 }, String(card))));
    }
    ring.appendChild(group);
  }

  function drawCentre(ring) {
    const view = state.view;
    let big = "";
    let small = "";
    if (view.phase === "lobby") {
      big = t("phase.lobby");
      small = t("board.waiting", { count: (view.seats || []).length });
    } else if (view.phase === "finished" && !state.playing) {
      big = t("phase.finished");
      small = t("board.winners", { names: (view.winners || []).join(", ") });
    } else {
      const round = state.playing && state.cards ? state.cards.round : view.round;
      big = t("phase.picking", { round });
      if (!state.playing && view.phase === "picking") {
        const seats = view.seats || [];
        small = t("board.picking", { done: seats.filter((s) => s.picked).length,
          total: seats.length });
      }
    }
    ring.appendChild(svg("text", { x: CX, y: CY - 10, class: "centre-round",
      "font-size": big.length > 16 ? 34 : 44 }, big));
    ring.appendChild(svg("text", { x: CX, y: CY + 34, class: "centre-sub" }, small));
    if (view.phase !== "lobby") {
      ring.appendChild(svg("text", { x: CX, y: CY + 120, class: "centre-legend" },
        t("board.legend")));
    }
  }

  /** Slide a figure forward round the ring from one space to another. */
  function slide(key, from, to) {
    return new Promise((resolve) => {
      const node = $("ring").querySelector(`[data-figure="${CSS.escape(key)}"]`);
      const L = state.view.track_length || 32;
      const steps = ((to - from) % L + L) % L;
      if (!node || steps === 0) { resolve(); return; }
      const duration = Math.min(1400, Math.max(120, steps * 110)) * (pause() / 900);
      const start = performance.now();
      function frame(now) {
        const f = Math.min(1, (now - start) / duration);
        const eased = f < 0.5 ? 2 * f * f : 1 - ((-2 * f + 2) ** 2) / 2;
        const [x, y] = point(from + steps * eased, R);
        node.setAttribute("transform", `translate(${x.toFixed(1)} ${y.toFixed(1)})`);
        if (f < 1) requestAnimationFrame(frame);
        else resolve();
      }
      requestAnimationFrame(frame);
    });
  }

  const wait = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

  // -------------------------------------------------------------- narration
  function payersAfter(events, index, cause) {
    const names = [];
    let points = 0;
    for (let i = index + 1; i < events.length; i += 1) {
      const ev = events[i];
      if (ev.type !== "penalty") break;
      if (ev.cause !== cause) continue;
      names.push(ev.player);
      points = ev.points;
    }
    return { names, points };
  }

  function narrate(ev, events, index) {
    const L = state.view.track_length || 32;
    const fig = K.figureName(ev.figure || "");
    switch (ev.type) {
      case "reveal": return t("ev.reveal", { round: ev.round, kali: ev.kali });
      case "move":
        return ev.passed_rhino ? t("ev.move_past", { figure: fig, card: ev.card, space: ev.to_space })
          : t("ev.move", { figure: fig, card: ev.card,
            spaces: ((ev.to_space - ev.from_space) % L + L) % L });
      case "stay":
        if (ev.reason === "zero") return t("ev.stay_zero", { figure: fig });
        if (ev.reason === "front") return t("ev.stay_front", { figure: fig, card: ev.card });
        return t("ev.stay_tie", { figure: fig, card: ev.card,
          other: K.figureName(ev.beaten_by || "?") });
      case "dung": {
        const paid = payersAfter(events, index, "dung");
        return t("ev.dung", { figure: fig, space: ev.space, points: paid.points,
          payers: paid.names.join(", ") });
      }
      case "rhino_run": {
        const paid = payersAfter(events, index, "rammed");
        return t("ev.rhino_run", { spaces: ev.spaces, figure: K.figureName(ev.rammed),
          points: paid.points, payers: paid.names.join(", ") });
      }
      case "round_end":
        return ev.game_over ? t("ev.game_over", { names: (ev.winners || []).join(", ") })
          : t("ev.round_end", { round: ev.round });
      default: return null;
    }
  }

  function say(text) {
    if (text) $("narration").textContent = text;
  }

  // -------------------------------------------------------------- playing
  function snapshot(view) {
    const minus = {};
    for (const seat of view.seats || []) minus[seat.name] = seat.minus_points;
    return {
      rhino: view.rhino,
      positions: Object.assign({}, view.positions || {}),
      minus,
      rounds: (view.history || []).length,
      dung: (view.dung || []).slice(),
    };
  }

  async function play() {
    if (state.playing) return;
    state.playing = true;
    while (state.queue.length) {
      const item = state.queue.shift();
      if (item.kind === "round") {
        state.cards = item.entry;
        continue;
      }
      const { ev, events, index } = item;
      const shown = state.shown;
      const text = narrate(ev, events, index);
      if (ev.type === "move") {
        say(text);
        drawRing();
        await slide(ev.figure === "Kali" ? "kali" : ev.figure, ev.from_space, ev.to_space);
        shown.positions[ev.figure] = ev.to_space;
      } else if (ev.type === "rhino_run") {
        say(text);
        drawRing();
        await slide("mambo", ev.from_space, ev.to_space);
        shown.rhino = ev.to_space;
        state.hit = ev.rammed === "Kali" ? "kali" : ev.rammed;
      } else if (ev.type === "dung") {
        say(text);
        state.flashHeap = ev.space;
        state.hit = ev.figure === "Kali" ? "kali" : ev.figure;
      } else if (ev.type === "penalty") {
        shown.minus[ev.player] = ev.total;
        renderScores();
        if (stepping() && lastOfPenaltyRun(events, index)) await gate();
        continue;
      } else if (ev.type === "round_end") {
        shown.rounds = item.roundsAfter;
        state.cards = null;
        say(text);
      } else {
        say(text);
      }
      drawRing();
      renderSide();
      await gate();
      state.hit = null;
      state.flashHeap = null;
    }
    state.playing = false;
    state.cards = null;
    if (state.view) state.shown = snapshot(state.view);
    render();
  }

  function onView(view) {
    const previous = state.view;
    state.view = view;
    const history = view.history || [];
    const fresh = !previous || !state.shown || view.game_id !== state.gameId
      || history.length < state.queuedRounds;
    state.gameId = view.game_id;
    if (fresh) {
      // first view, a new game or an undo: show the state as it is, no replay
      state.queue = [];
      state.queuedRounds = history.length;
      state.shown = snapshot(view);
      state.pressBase = presses();
      if (!state.playing) render();
      return;
    }
    if (!state.playing && !state.queue.length) state.pressBase = presses();
    for (let r = state.queuedRounds; r < history.length; r += 1) {
      const entry = history[r];
      state.queue.push({ kind: "round", entry });
      (entry.events || []).forEach((ev, index) => {
        state.queue.push({ ev, events: entry.events, index, roundsAfter: r + 1 });
      });
    }
    state.queuedRounds = history.length;
    if (state.queue.length) play();
    else if (!state.playing) {
      state.shown = snapshot(view);
      render();
    } else {
      renderSide();
    }
  }

  // ------------------------------------------------------------ side panel
  function renderScores() {
    const view = state.view;
    const table = $("scores");
    table.textContent = "";
    if (!view) return;
    const seats = view.seats || [];
    const history = (view.history || []).slice(0, state.shown ? state.shown.rounds : 0);
    const started = view.phase !== "lobby";
    const head = el("tr", {}, el("th", {}, t("board.player")));
    const rounds = started ? 12 : 0;
    for (let r = 1; r <= rounds; r += 1) {
      head.appendChild(el("th", { class: "round-col" }, t("board.round_short", { round: r })));
    }
    head.appendChild(el("th", {}, t("board.total")));
    table.appendChild(el("thead", {}, head));
    const body = el("tbody");
    const winners = !state.playing && view.phase === "finished" ? view.winners || [] : [];
    for (const seat of seats) {
      const row = el("tr", { class: winners.includes(seat.name) ? "winner" : "" });
      const mark = view.phase === "picking" && !state.playing
        ? el("span", { class: "muted" }, seat.picked ? " ✓" : " …") : null;
      row.appendChild(el("td", { class: "name" },
        el("span", { class: `dot c-${seat.colour}`, "aria-hidden": "true" }), " ",
        seat.name, mark, el("span", { class: "colour-small" }, seat.bot
          ? t("board.bot_colour", { colour: t(`colour.${seat.colour}`),
            level: t(`level.${seat.bot_level || "medium"}`) })
          : t(`colour.${seat.colour}`))));
      let before = 0;
      for (let r = 0; r < rounds; r += 1) {
        const entry = history[r];
        if (!entry) { row.appendChild(el("td", {}, "")); continue; }
        const now = (entry.minus_points || {})[seat.name] || 0;
        const gained = now - before;
        before = now;
        row.appendChild(el("td", { class: gained ? "" : "zero" }, gained ? `+${gained}` : "0"));
      }
      const total = state.shown && seat.name in state.shown.minus
        ? state.shown.minus[seat.name] : seat.minus_points;
      row.appendChild(el("td", { class: "total" }, String(total)));
      body.appendChild(row);
    }
    table.appendChild(body);
  }

  function renderChart() {
    const view = state.view;
    const box = $("chart-box");
    const show = view.phase === "finished" && !state.playing;
    box.hidden = !show;
    if (!show) return;
    const chart = $("chart");
    chart.textContent = "";
    const history = view.history || [];
    const seats = view.seats || [];
    const W = 560;
    const H = 300;
    const left = 40;
    const right = 110;
    const top = 16;
    const bottom = 34;
    let max = 1;
    for (const entry of history) {
      for (const v of Object.values(entry.minus_points || {})) max = Math.max(max, v);
    }
    const step = max <= 10 ? 2 : max <= 25 ? 5 : 10;
    max = Math.ceil(max / step) * step;
    const x = (r) => left + ((W - left - right) * r) / 12;
    const y = (v) => H - bottom - ((H - top - bottom) * v) / max;
    for (let v = 0; v <= max; v += step) {
      chart.appendChild(svg("line", { x1: left, x2: W - right, y1: y(v), y2: y(v), class: "grid" }));
      chart.appendChild(svg("text", { x: left - 8, y: y(v) + 4, "text-anchor": "end" }, String(v)));
    }
    for (let r = 0; r <= 12; r += 1) {
      chart.appendChild(svg("text", { x: x(r), y: H - bottom + 18, "text-anchor": "middle" }, String(r)));
    }
    chart.appendChild(svg("line", { x1: left, x2: W - right, y1: y(0), y2: y(0), class: "axis" }));
    chart.appendChild(svg("line", { x1: left, x2: left, y1: top, y2: y(0), class: "axis" }));
    const ends = [];
    for (const seat of seats) {
      const pts = [[x(0), y(0)]];
      history.forEach((entry, i) => {
        pts.push([x(i + 1), y((entry.minus_points || {})[seat.name] || 0)]);
      });
      chart.appendChild(svg("polyline", {
        class: `line c-${seat.colour}`, style: "stroke: var(--c)",
        points: pts.map((p) => p.map((n) => n.toFixed(1)).join(",")).join(" "),
      }, svg("title", {}, seat.name)));
      const last = pts[pts.length - 1];
      ends.push({ y: last[1], name: seat.name, colour: seat.colour });
    }
    // labels at the line ends, nudged apart so they never overlap
    ends.sort((a, b) => a.y - b.y);
    for (let i = 1; i < ends.length; i += 1) {
      if (ends[i].y - ends[i - 1].y < 15) ends[i].y = ends[i - 1].y + 15;
    }
    for (const end of ends) {
      chart.appendChild(svg("text", { x: W - right + 8, y: end.y + 4, class: `c-${end.colour}`,
        style: "fill: var(--c); font-size: 14px; font-weight: 700" }, end.name));
    }
  }

  function phaseText() {
    const view = state.view;
    const seats = view.seats || [];
    if (view.phase === "lobby") return t("board.waiting", { count: seats.length });
    if (state.playing && state.cards) return t("phase.picking", { round: state.cards.round });
    if (view.phase === "finished") return t("phase.finished");
    return `${t("phase.picking", { round: view.round })} · ${t("board.picking", {
      done: seats.filter((s) => s.picked).length, total: seats.length })}`;
  }

  /** Everything beside the ring; safe to call while a round is being played. */
  function renderSide() {
    const view = state.view;
    const lobby = view.phase === "lobby";
    $("phase").textContent = phaseText();
    $("join-box").hidden = !lobby;
    const url = view.join_url || "";
    if ($("join-url").textContent !== url) {
      $("join-url").textContent = url;
      $("qr").src = `${$("qr").getAttribute("src").split("?")[0]}?u=${encodeURIComponent(url)}`;
    }
    const over = view.phase === "finished" && !state.playing;
    $("winners").hidden = !over;
    if (over) $("winners").textContent = t("board.winners", { names: (view.winners || []).join(", ") });
    renderScores();
    renderChart();
  }

  function render() {
    const view = state.view;
    if (!view) return;
    renderSide();
    if (!state.playing) {
      if (view.phase === "lobby") say(t("board.ready"));
      else if (view.phase === "finished") {
        say(t("ev.game_over", { names: (view.winners || []).join(", ") }));
      }
    }
    drawRing();
  }

  // ------------------------------------------------------------ extras
  async function loadPin() {
    try {
      const data = await K.api("GET", "/local");
      const pin = data && data.local ? data.pin : null;
      $("pin").hidden = !pin;
      if (pin) $("pin").textContent = t("board.pin", { pin });
    } catch (e) { /* the board works without it */ }
  }

  async function pollLeds() {
    try {
      const data = await K.api("GET", "/leds");
      const box = $("leds");
      const leds = data.leds || [];
      while (box.children.length > leds.length) box.lastChild.remove();
      while (box.children.length < leds.length) box.appendChild(el("span"));
      leds.forEach((rgb, i) => {
        box.children[i].style.background = `rgb(${rgb[0]}, ${rgb[1]}, ${rgb[2]})`;
      });
    } catch (e) { /* try again on the next tick */ }
    setTimeout(pollLeds, document.hidden ? 2000 : 250);
  }

  function setConnected(ok) {
    const box = $("conn");
    box.className = `conn ${ok ? "ok" : "down"}`;
    box.textContent = ok ? "" : t("conn.lost");
  }

  K.onLang(() => render());
  loadPin();
  if (params.get("leds") === "1") {
    $("leds-box").hidden = false;
    pollLeds();
  }
  K.live(onView, setConnected);
})();
