/* The booth's sound cues (off unless the host switches them on: view.booth.sound):
   a dung splat, a rhino charge and the end of a game, made in the page with the Web
   Audio API (no audio files). They are played as the board animates a step the
   table's cursor has just reached, never for steps a reloaded page finds already
   shown (those are drawn, not animated).

   Browsers start audio only after a click or key on the page, or with the kiosk's
   --autoplay-policy=no-user-gesture-required (the Pi's own screen). */

/** @typedef {import("./state.js").Board} Board */

/** @type {AudioContext | null} */
let context = null;
export const played = [];  // the cues played, newest last (the browser test reads it)

function audio() {
  // Safari before 14.1 has only the prefixed name
  const Context = window.AudioContext
    || /** @type {{webkitAudioContext?: typeof AudioContext}} */ (window).webkitAudioContext;
  if (!Context) return null;
  if (!context) context = new Context();
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

/** On (per the table's view)?  @param {Board} board */
export function soundOn(board) {
  const table = board.table || board.view;
  return Boolean(table && table.booth && table.booth.sound);
}

function tone(ctx, { type, from, to, start, length, volume }) {
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(from, start);
  osc.frequency.exponentialRampToValueAtTime(to, start + length);
  gain.gain.setValueAtTime(0.0001, start);
  gain.gain.exponentialRampToValueAtTime(volume, start + 0.02);
  gain.gain.exponentialRampToValueAtTime(0.0001, start + length);
  osc.connect(gain).connect(ctx.destination);
  osc.start(start);
  osc.stop(start + length + 0.05);
}

function splat(ctx, now) {
  // a short burst of falling noise: something soft landing
  const length = 0.35;
  const buffer = ctx.createBuffer(1, Math.floor(ctx.sampleRate * length), ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; i += 1) {
    data[i] = (Math.random() * 2 - 1) * (1 - i / data.length) ** 3;
  }
  const noise = ctx.createBufferSource();
  noise.buffer = buffer;
  const filter = ctx.createBiquadFilter();
  filter.type = "lowpass";
  filter.frequency.setValueAtTime(1800, now);
  filter.frequency.exponentialRampToValueAtTime(200, now + length);
  const gain = ctx.createGain();
  gain.gain.value = 0.5;
  noise.connect(filter).connect(gain).connect(ctx.destination);
  noise.start(now);
  tone(ctx, { type: "sine", from: 220, to: 60, start: now, length: 0.25, volume: 0.4 });
}

function charge(ctx, now) {
  // hooves: low thuds speeding up, then a rising snort
  for (let i = 0; i < 5; i += 1) {
    tone(ctx, { type: "triangle", from: 110, to: 50, start: now + i * 0.11 * (1 - i * 0.08),
      length: 0.09, volume: 0.5 });
  }
  tone(ctx, { type: "sawtooth", from: 90, to: 260, start: now + 0.5, length: 0.3, volume: 0.2 });
}

function fanfare(ctx, now) {
  [523.25, 659.25, 783.99, 1046.5].forEach((f, i) => {
    tone(ctx, { type: "square", from: f, to: f, start: now + i * 0.14,
      length: i === 3 ? 0.6 : 0.13, volume: 0.15 });
  });
}

const CUES = { dung: splat, rhino: charge, game_over: fanfare };

/** The cue of an event being animated, if any: dung, rhino or game_over. */
export function cueOf(ev) {
  if (ev.type === "dung") return "dung";
  if (ev.type === "rhino_run") return "rhino";
  if (ev.type === "round_end" && ev.game_over) return "game_over";
  return null;
}

/** Play the cue of an event the board is animating now (when the host wants sound).
    @param {any} ev  @param {Board} board */
export function cue(ev, board) {
  const name = cueOf(ev);
  if (!name || !soundOn(board)) return;
  played.push(name);
  document.body.dataset.cues = String(played.length);
  const ctx = audio();
  if (!ctx) return;
  try {
    CUES[name](ctx, ctx.currentTime + 0.01);
  } catch (e) { /* no sound is better than a stuck board */ }
}

/** A click or key anywhere lets the browser start audio (its autoplay rule).
    @param {Board} board */
export function unlockOnGesture(board) {
  const unlock = () => { if (soundOn(board)) audio(); };
  window.addEventListener("pointerdown", unlock);
  window.addEventListener("keydown", unlock);
}
