/* Translations: all four languages come with the page (no round trip to switch), the
   choice is remembered, and elements marked data-i18n* are filled in. */

import { el } from "./dom.js";
import { hasOwn } from "./names.js";
import { storageGet, storageSet } from "./storage.js";

/** @type {Record<string, Record<string, string>>} every language's messages, in the page */
const MESSAGES = JSON.parse(/** @type {HTMLElement} */ (document.getElementById("messages")).textContent || "{}");
export const LANGS = ["en", "de", "fr", "it"];
const LANG_KEY = "kalimambo.lang";
const listeners = [];

/** @returns {string} */
function browserLang() {
  const stored = storageGet(LANG_KEY);
  if (stored !== null && LANGS.includes(stored)) return stored;
  const wanted = navigator.languages && navigator.languages.length
    ? navigator.languages : [navigator.language || "en"];
  for (const tag of wanted) {
    const code = String(tag).slice(0, 2).toLowerCase();
    if (LANGS.includes(code)) return code;
  }
  return "en";
}

let lang = browserLang();

/** The current language's code. */
export const currentLang = () => lang;

/** The message `key` in the current language, with {name} filled from params. */
export function t(key, params) {
  const table = MESSAGES[lang];
  // "1 space", not "1 spaces": a message may have a ".one" form for a count of one.
  if (params && params.spaces === 1 && hasOwn(table, `${key}.one`)) key = `${key}.one`;
  let text = hasOwn(table, key) ? table[key] : (hasOwn(MESSAGES.en, key) ? MESSAGES.en[key] : key);
  if (params) {
    text = text.replace(/\{(\w+)\}/g, (whole, name) =>
      (hasOwn(params, name) ? String(params[name]) : whole));
  }
  return text;
}

/** Does the current language have its own words for `key`? */
export const hasMessage = (key, code) => hasOwn(MESSAGES[code || lang], key);

/** Fill every data-i18n (text), data-i18n-placeholder and data-i18n-label (aria-label). */
export function applyI18n(root) {
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

export function setLang(code) {
  if (!LANGS.includes(code)) return;
  lang = code;
  storageSet(LANG_KEY, code);
  applyI18n();
  listeners.forEach((listener) => listener(code));
}

/** Call `listener` after every change of language (to redraw what is built in code). */
export function onLang(listener) { listeners.push(listener); }

/** Fill a <select> with the four languages (each named in itself). */
export function langSwitch(select) {
  select.textContent = "";
  for (const code of LANGS) {
    select.appendChild(el("option", { value: code }, MESSAGES[code]["lang.name"]));
  }
  select.value = lang;
  select.addEventListener("change", () => setLang(select.value));
}

/** A figure's name for people: Kali in the current language, a player as typed. */
export function figureName(name) {
  return name === "Kali" ? t("figure.kali") : name;
}

/** A colour swatch with the colour's name beside it (colour-blind players). */
export function colourTag(colour) {
  return el("span", { class: `colour-tag c-${colour}` },
    el("span", { class: "swatch", "aria-hidden": "true" }),
    el("span", { class: "colour-name" }, t(`colour.${colour}`)));
}
