/* Shared by the phone, board and host pages: translations, the JSON API, the live
   view over Server-Sent Events, and a tiny DOM helper that only ever sets text
   (player names are typed by players, so they never become HTML markup). */
"use strict";

const K = (() => {
  const MESSAGES = JSON.parse(document.getElementById("messages").textContent);
  const LANGS = ["en", "de", "fr", "it"];
  const COLOURS = ["green", "yellow", "violet", "red", "blue", "orange", "natural"];
  const LANG_KEY = "kalimambo.lang";
  const langListeners = [];

  function storageGet(key) {
    try { return window.localStorage.getItem(key); } catch (e) { return null; }
  }
  function storageSet(key, value) {
    try {
      if (value === null) window.localStorage.removeItem(key);
      else window.localStorage.setItem(key, value);
    } catch (e) { /* private mode: the page still works, it just forgets */ }
  }

  function browserLang() {
    const stored = storageGet(LANG_KEY);
    if (LANGS.includes(stored)) return stored;
    const wanted = navigator.languages && navigator.languages.length
      ? navigator.languages : [navigator.language || "en"];
    for (const tag of wanted) {
      const code = String(tag).slice(0, 2).toLowerCase();
      if (LANGS.includes(code)) return code;
    }
    return "en";
  }

  let lang = browserLang();

  /** The message `key` in the current language, with {name} filled from params. */
  function t(key, params) {
    const table = MESSAGES[lang] || {};
    // "1 space", not "1 spaces": a message may have a ".one" form for a count of one.
    if (params && params.spaces === 1 && `${key}.one` in table) key = `${key}.one`;
    let text = key in table ? table[key] : (key in MESSAGES.en ? MESSAGES.en[key] : key);
    if (params) {
      text = text.replace(/\{(\w+)\}/g, (whole, name) =>
        (name in params ? String(params[name]) : whole));
    }
    return text;
  }

  function applyI18n(root) {
    const scope = root || document;
    scope.querySelectorAll("[data-i18n]").forEach((node) => {
      node.textContent = t(node.dataset.i18n);
    });
    scope.querySelectorAll("[data-i18n-placeholder]").forEach((node) => {
      node.setAttribute("placeholder", t(node.dataset.i18nPlaceholder));
    });
    scope.querySelectorAll("[data-i18n-label]").forEach((node) => {
      node.setAttribute("aria-label", t(node.dataset.i18nLabel));
    });
    document.documentElement.lang = lang;
    const title = document.body.dataset.title;
    if (title) document.title = t(title);
  }

  function setLang(code) {
    if (!LANGS.includes(code)) return;
    lang = code;
    storageSet(LANG_KEY, code);
    applyI18n();
    langListeners.forEach((listener) => listener(code));
  }

  /** Fill a <select> with the four languages (each named in itself). */
  function langSwitch(select) {
    select.textContent = "";
    for (const code of LANGS) {
      const option = document.createElement("option");
      option.value = code;
      option.textContent = MESSAGES[code]["lang.name"];
      select.appendChild(option);
    }
    select.value = lang;
    select.addEventListener("change", () => setLang(select.value));
  }

  function onLang(listener) { langListeners.push(listener); }

  /** Build an element: attrs may hold class, dataset, on* handlers; strings become text. */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "class") node.className = value;
      else if (name === "dataset") Object.assign(node.dataset, value);
      else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else if (name === "text") node.textContent = value;
      else node.setAttribute(name, value === true ? "" : value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(typeof child === "string" || typeof child === "number"
        ? document.createTextNode(String(child)) : child);
    }
    return node;
  }

  /** A colour swatch with the colour's name beside it (colour-blind players). */
  function colourTag(colour) {
    return el("span", { class: `colour-tag c-${colour}` },
      el("span", { class: "swatch", "aria-hidden": "true" }),
      el("span", { class: "colour-name" }, t(`colour.${colour}`)));
  }

  function figureName(name) {
    return name === "Kali" ? t("figure.kali") : name;
  }

  function listNames(names) {
    return names.map(figureName).join(", ");
  }

  function initials(name) {
    const letters = Array.from(String(name).trim());
    return (letters[0] || "?").toUpperCase() + (letters[1] || "");
  }

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  /** The table's messages are English: other languages get our own words for the code. */
  function errorText(code, message) {
    const key = `err.${code}`;
    if (lang !== "en" && key in (MESSAGES[lang] || {})) return t(key);
    return message || (key in MESSAGES.en ? t(key) : t("error.generic"));
  }

  /** Call /api/v1: resolves with the JSON answer, rejects with an ApiError. */
  async function api(method, path, options) {
    const opts = options || {};
    const headers = {};
    if (opts.body !== undefined) headers["Content-Type"] = "application/json";
    if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
    let response;
    try {
      response = await fetch(`/api/v1${path}`, {
        method,
        headers,
        cache: "no-store",
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      });
    } catch (e) {
      throw new ApiError(0, "network", t("error.network"));
    }
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    if (!response.ok) {
      const error = (data && data.error) || {};
      const code = error.code || `http_${response.status}`;
      throw new ApiError(response.status, code, errorText(code, error.message));
    }
    return data;
  }

  /** Follow the public view: one EventSource, reopened when it closes for good.

     onView(view) gets every snapshot; onStatus(true|false) the connection state;
     tokenOf() gives the seat's token, so the table knows that seat is connected.
     Returns {reconnect} for pages that wake up from sleep. */
  function live(onView, onStatus, tokenOf) {
    let source = null;
    let retryTimer = null;
    let delay = 1000;

    function open() {
      clearTimeout(retryTimer);
      if (source) source.close();
      const token = tokenOf ? tokenOf() : null;
      source = new EventSource(token ? `/api/v1/events?token=${encodeURIComponent(token)}`
        : "/api/v1/events");
      source.onmessage = (message) => {
        let view;
        try { view = JSON.parse(message.data); } catch (e) { return; }
        delay = 1000;
        if (onStatus) onStatus(true);
        onView(view);
      };
      source.onerror = () => {
        if (onStatus) onStatus(false);
        if (source.readyState === EventSource.CLOSED) {
          retryTimer = setTimeout(open, delay);
          delay = Math.min(delay * 2, 15000);
        }
      };
    }

    open();
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden && source && source.readyState !== EventSource.OPEN) open();
    });
    window.addEventListener("online", open);
    return { reconnect: open };
  }

  /** Show `text` in the page's message line for a while (role=status for screen readers). */
  function toast(text, kind) {
    const box = document.getElementById("toast");
    if (!box) return;
    box.textContent = text;
    box.className = `toast show ${kind || ""}`;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { box.className = "toast"; }, 5000);
  }

  document.addEventListener("DOMContentLoaded", () => {
    applyI18n();
    const select = document.getElementById("lang");
    if (select) langSwitch(select);
  });

  return {
    LANGS, COLOURS, t, applyI18n, setLang, onLang, el, colourTag, figureName, listNames,
    initials, api, ApiError, live, toast, storageGet, storageSet,
    get lang() { return lang; },
  };
})();
