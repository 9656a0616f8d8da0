/* Dates and times as the table writes them, the same on every page and on the printed
   score sheet (web/storage/archive.py writes them there the same way): "2 December 2026, 05:16"
   in the page's language, the time on a 24-hour clock. */

import { t } from "./i18n.js";

const two = (n) => String(n).padStart(2, "0");

/** "05:16": the time of day (local) of a moment in Unix seconds. */
export function timeOfDay(seconds) {
  const moment = new Date(seconds * 1000);
  return `${two(moment.getHours())}:${two(moment.getMinutes())}`;
}

/** "2 December 2026, 05:16": the date and time (local) of a moment in Unix seconds. */
export function dateTime(seconds) {
  const moment = new Date(seconds * 1000);
  const months = t("date.months").split(",").map((name) => name.trim());
  return t("date.format", { day: moment.getDate(),
    month: months[moment.getMonth()] || String(moment.getMonth() + 1),
    year: moment.getFullYear(), time: timeOfDay(seconds) });
}

/** The time alone for a moment of today, else the date and time. */
export function when(seconds) {
  const moment = new Date(seconds * 1000);
  return moment.toDateString() === new Date().toDateString()
    ? timeOfDay(seconds) : dateTime(seconds);
}
