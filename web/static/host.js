/* The host page: PIN login, seats (remove, computer players, seats without a phone),
   start with a random or an entered set-up, undo, new game, the light strip and
   hints.  A seat without a phone is played here: the device is handed over, the
   player picks unseen, and the page hides the card again. */
"use strict";

(() => {
  const { el, t, api } = K;
  const $ = (id) => document.getElementById(id);
  const TOKEN_KEY = "kalimambo.host";
  const LEVELS = ["random", "easy", "medium", "hard"];

  const state = {
    token: K.storageGet(TOKEN_KEY),
    view: null,
    order: [],          // entered set-up: names from Mambo to Kali
    orderKey: "",
    handover: null,     // {name, hand, colour, selected, round}
  };

  // ------------------------------------------------------------ helpers
  async function hostCall(method, path, body) {
    try {
      return await api(method, path, { token: state.token, body });
    } catch (err) {
      if (err.code === "host_only") logout();
      throw err;
    }
  }

  /** Run a host action; show the table's message if it is refused. */
  async function act(button, method, path, body) {
    if (button) button.disabled = true;
    try {
      return await hostCall(method, path, body);
    } catch (err) {
      K.toast(err.message, "error");
      return null;
    } finally {
      if (button) button.disabled = false;
    }
  }

  /** A button that needs a second tap within 4 s (no browser dialogs on a phone). */
  function twoTap(button, action) {
    let armed = null;
    button.addEventListener("click", () => {
      if (armed) {
        clearTimeout(armed);
        armed = null;
        button.classList.remove("armed");
        K.applyI18n(button.parentNode);
        action();
        return;
      }
      button.classList.add("armed");
      button.textContent = t("host.confirm");
      armed = setTimeout(() => {
        armed = null;
        button.classList.remove("armed");
        K.applyI18n(button.parentNode);
      }, 4000);
    });
  }

  // -------------------------------------------------------------- login
  async function login(event) {
    event.preventDefault();
    try {
      const data = await api("POST", "/host", { body: { pin: $("pin").value.trim() } });
      state.token = data.token;
      K.storageSet(TOKEN_KEY, data.token);
      $("pin").value = "";
      render();
    } catch (err) {
      K.toast(err.message, "error");
    }
  }

  function logout() {
    state.token = null;
    K.storageSet(TOKEN_KEY, null);
    closeHandover();
    render();
  }

  async function checkLogin() {
    if (!state.token) return;
    try {
      await api("GET", "/host", { token: state.token });
    } catch (err) {
      if (err.status === 401 || err.status === 403) logout();
    }
  }

  // -------------------------------------------------------------- seats
  function seatStatus(seat) {
    if (seat.bot) return el("span", { class: "muted" }, t("host.bot", { level: t(`level.${seat.bot_level || "medium"}`) }));
    if (seat.hosted) return el("span", { class: "muted" }, t("host.hosted"));
    return el("span", { class: seat.connected ? "state-ok" : "state-bad" },
      seat.connected ? `● ${t("host.connected")}` : `○ ${t("host.away")}`);
  }

  function renderSeats() {
    const view = state.view;
    const list = $("seats");
    list.textContent = "";
    const seats = view.seats || [];
    $("no-seats").hidden = seats.length > 0;
    for (const seat of seats) {
      const item = el("li", { dataset: { seat: seat.name } },
        el("span", { class: "name" }, seat.name),
        K.colourTag(seat.colour),
        seatStatus(seat),
        el("span", { class: "grow" }));
      if (view.phase === "picking") {
        item.appendChild(el("span", { class: seat.picked ? "state-ok" : "muted" },
          seat.picked ? `✓ ${t("pick.picked")}` : `… ${t("pick.thinking")}`));
        if (seat.hosted) {
          item.appendChild(el("button", { type: "button", class: "primary",
            onclick: () => openHandover(seat.name) }, t("host.pick_for", { name: seat.name })));
        }
      }
      if (view.phase === "lobby") {
        const remove = el("button", { type: "button", class: "danger" }, t("host.remove"));
        remove.addEventListener("click", () => act(remove, "POST", "/host/remove", { name: seat.name }));
        item.appendChild(remove);
      } else if (view.phase === "finished") {
        item.appendChild(el("span", {}, String(seat.minus_points)));
      }
      list.appendChild(item);
    }
    const free = 7 - seats.length;
    const count = $("bot-count");
    const keep = count.value;
    count.textContent = "";
    for (let n = 1; n <= Math.max(free, 0); n += 1) count.appendChild(el("option", { value: n }, String(n)));
    if (keep && Number(keep) <= free) count.value = keep;
    $("add-bots").disabled = free <= 0;
  }

  // -------------------------------------------------------------- set-up
  function renderOrder() {
    const names = (state.view.seats || []).map((s) => s.name);
    const key = names.join("\u0000");
    if (key !== state.orderKey) {
      state.order = names.slice();
      state.orderKey = key;
    }
    const list = $("setup-order");
    list.textContent = "";
    state.order.forEach((name, i) => {
      const up = el("button", { type: "button", class: "ghost", "aria-label": t("host.up"),
        disabled: i === 0 }, "↑");
      up.addEventListener("click", () => {
        [state.order[i - 1], state.order[i]] = [state.order[i], state.order[i - 1]];
        renderOrder();
      });
      list.appendChild(el("li", {}, el("span", { class: "pos" }, `${i + 1}.`),
        el("span", { class: `dot c-${Cards.colourOf(state.view, name)}` }),
        el("span", { class: "grow" }, name), up));
    });
  }

  function enteredSetup() {
    const rhino = Number($("setup-rhino").value);
    const dungText = $("setup-dung").value.trim();
    const dung = dungText ? dungText.split(/[\s,;]+/).filter(Boolean).map(Number) : [];
    return { rhino, order: state.order.slice(), dung };
  }

  // -------------------------------------------------------------- hand-over
  function openHandover(name) {
    state.handover = { name, hand: [], colour: "natural", selected: null, pick: null, round: 0 };
    $("ho-title").textContent = t("host.handover", { name });
    $("ho-show").textContent = t("host.show_cards", { name });
    $("ho-ask").hidden = false;
    $("ho-pick").hidden = true;
    $("ho-done").hidden = true;
    $("handover").hidden = false;
  }

  function closeHandover() {
    state.handover = null;
    $("handover").hidden = true;
    $("ho-hand").textContent = "";
  }

  async function showHand() {
    const ho = state.handover;
    if (!ho) return;
    const data = await act($("ho-show"), "GET", `/host/seats/${encodeURIComponent(ho.name)}/me`);
    if (!data) return;
    ho.hand = data.me.hand;
    ho.pick = data.me.pick;
    ho.round = data.round;
    ho.colour = data.me.colour || Cards.colourOf(data, ho.name);
    $("ho-name").textContent = ho.name;
    $("ho-ask").hidden = true;
    $("ho-pick").hidden = false;
    drawHandover();
  }

  function drawHandover() {
    const ho = state.handover;
    Cards.renderHand($("ho-hand"), {
      hand: ho.hand, colour: ho.colour, pick: ho.pick, selected: ho.selected,
      onTap: (card) => { ho.selected = card; drawHandover(); },
    });
    $("ho-status").textContent = ho.pick === null || ho.pick === undefined
      ? t("pick.choose") : t("pick.done", { card: ho.pick });
    const ready = ho.selected !== null && ho.selected !== ho.pick;
    $("ho-confirm").disabled = !ready;
    $("ho-confirm").textContent = ready ? t("pick.confirm", { card: ho.selected })
      : t("pick.choose");
  }

  async function confirmHandover() {
    const ho = state.handover;
    if (!ho || ho.selected === null) return;
    const done = await act($("ho-confirm"), "POST",
      `/host/seats/${encodeURIComponent(ho.name)}/pick`, { round: ho.round, card: ho.selected });
    if (!done) return;
    // hide the card at once: the next person to look must not see it
    $("ho-hand").textContent = "";
    ho.selected = null;
    $("ho-pick").hidden = true;
    $("ho-done").hidden = false;
  }

  // -------------------------------------------------------------- render
  function renderLights() {
    const lights = state.view.lights || {};
    const status = $("lights-status");
    status.className = lights.ok ? "state-ok" : "state-bad";
    status.textContent = lights.ok
      ? t("host.lights_ok", { backend: lights.backend || "?" })
      : t("host.lights_error", { backend: lights.backend || "?", error: lights.error || "—" });
    $("lights-retry").hidden = Boolean(lights.ok);
    $("pacing").value = lights.pacing || "auto";
    $("lights-next").hidden = lights.pacing !== "step";
    $("hints").checked = Boolean(state.view.hints);
    $("hints-label").textContent = state.view.hints ? t("host.on") : t("host.off");
  }

  function render() {
    const logged = Boolean(state.token);
    $("login").hidden = logged;
    $("console").hidden = !logged;
    if (!logged || !state.view) return;
    const view = state.view;
    const lobby = view.phase === "lobby";
    $("game-status").textContent = lobby
      ? t("host.lobby_status", { count: (view.seats || []).length })
      : view.phase === "finished" ? t("phase.finished") : t("phase.picking", { round: view.round });
    $("undo").hidden = lobby || !(view.history || []).length;
    $("record").hidden = lobby;
    $("lobby-tools").hidden = !lobby;
    $("start-box").hidden = !lobby;
    renderSeats();
    if (lobby) renderOrder();
    renderLights();
    if (state.handover && view.phase !== "picking" && $("ho-done").hidden) closeHandover();
  }

  function onView(view) {
    state.view = view;
    render();
  }

  function setConnected(ok) {
    const box = $("conn");
    box.className = `conn ${ok ? "ok" : "down"}`;
    box.textContent = ok ? "" : t("conn.lost");
  }

  // -------------------------------------------------------------- wiring
  for (const level of LEVELS) {
    $("bot-level").appendChild(el("option", { value: level, "data-i18n": `level.${level}` },
      t(`level.${level}`)));
  }
  $("bot-level").value = "medium";
  $("login-form").addEventListener("submit", login);
  $("logout").addEventListener("click", logout);
  $("undo").addEventListener("click", () => act($("undo"), "POST", "/host/undo", {}));
  twoTap($("new-game"), () => act($("new-game"), "POST", "/host/new", { keep_seats: false }));
  $("add-bots").addEventListener("click", () => act($("add-bots"), "POST", "/host/bots",
    { count: Number($("bot-count").value), level: $("bot-level").value }));
  $("hosted-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = $("hosted-name").value.trim();
    if (!name) return;
    if (await act(null, "POST", "/host/seats", { name })) $("hosted-name").value = "";
  });
  $("start-random").addEventListener("click", () => act($("start-random"), "POST", "/host/start", {}));
  $("setup-form").addEventListener("submit", (event) => {
    event.preventDefault();
    act(null, "POST", "/host/start", { setup: enteredSetup() });
  });
  $("lights-retry").addEventListener("click", () => act($("lights-retry"), "POST", "/host/lights/retry", {}));
  $("lights-next").addEventListener("click", () => act($("lights-next"), "POST", "/host/lights/next", {}));
  $("pacing").addEventListener("change", () => act(null, "POST", "/host/settings", { pacing: $("pacing").value }));
  $("hints").addEventListener("change", () => act(null, "POST", "/host/settings", { hints: $("hints").checked }));
  $("ho-show").addEventListener("click", showHand);
  $("ho-cancel").addEventListener("click", closeHandover);
  $("ho-abort").addEventListener("click", closeHandover);
  $("ho-confirm").addEventListener("click", confirmHandover);
  $("ho-back").addEventListener("click", closeHandover);
  K.onLang(() => render());

  render();
  checkLogin();
  K.live(onView, setConnected);
})();
