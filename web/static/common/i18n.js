/* Translations: the page brings the messages of one language, the one the server chose
   (the player's choice, which the switch also keeps in the "lang" cookie for it, else the
   browser's); another language is fetched once from /i18n/<code>.json when chosen, and
   kept. The choice is remembered, and elements marked data-i18n* are filled in. */

import { el } from "./dom.js";
import { hasOwn } from "./names.js";
import { storageGet, storageSet } from "./storage.js";

/** @param {string} id  @returns {any} */
const pageJson = (id) => JSON.parse(document.getElementById(id)?.textContent || "{}");

/** @type {Record<string, Record<string, string>>} the messages of each language loaded so far */
const MESSAGES = pageJson("messages");
/** @type {Record<string, string>} each language's name in itself, for the switch */
const NAMES = pageJson("languages");
export const LANGS = ["en", "de", "fr", "it"];
const LANG_KEY = "kalimambo.lang";
const LANG_COOKIE = "lang";
const YEAR_S = 365 * 24 * 3600;
const listeners = [];

/** The language the page came with. */
const served = LANGS.find((code) => hasOwn(MESSAGES, code)) || "en";

/** Tell the server the choice, so the next page comes in it. @param {string} code */
function tellServer(code) {
  document.cookie = `${LANG_COOKIE}=${code}; path=/; max-age=${YEAR_S}; SameSite=Lax`;
}

/** The messages of `code`, fetched if the page does not have them yet.
    @param {string} code  @returns {Promise<boolean>} whether they are there */
async function load(code) {
  if (hasOwn(MESSAGES, code)) return true;
  try {
    const response = await fetch(`/i18n/${code}.json`);
    if (!response.ok) return false;
    MESSAGES[code] = await response.json();
    return true;
  } catch (e) {
    return false;
  }
}

let lang = served;
const stored = storageGet(LANG_KEY);
if (stored !== null && LANGS.includes(stored)) {
  tellServer(stored);  // a choice from before the cookie: the next page comes in it
  // the page waits for its words (the HTML's English shows meanwhile, never a key)
  if (stored !== served && await load(stored)) lang = stored;
}

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

let wanted = lang;

/** Switch to `code` (fetching its messages the first time).
    @param {string} code  @returns {Promise<boolean>} whether the page is now in it */
export async function setLang(code) {
  if (!LANGS.includes(code)) return false;
  wanted = code;
  if (!(await load(code))) return false;
  if (wanted !== code) return false;  // another choice came meanwhile: it wins
  lang = code;
  storageSet(LANG_KEY, code);
  tellServer(code);
  applyI18n();
  listeners.forEach((listener) => listener(code));
  return true;
}

/** Call `listener` after every change of language (to redraw what is built in code). */
export function onLang(listener) { listeners.push(listener); }

/** Fill a <select> with the four languages (each named in itself). */
export function langSwitch(select) {
  select.textContent = "";
  for (const code of LANGS) {
    select.appendChild(el("option", { value: code }, NAMES[code] || code));
  }
  select.value = lang;
  select.addEventListener("change", async () => {
    const code = select.value;
    // the table did not answer: the switch shows the language the page is still in
    if (!(await setLang(code)) && select.value === code && wanted === code) select.value = lang;
  });
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
