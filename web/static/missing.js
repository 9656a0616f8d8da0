/* The table's own page for an address that does not exist: its words in the chosen
   language, and the language switch. */

import { startPage } from "./common/page.js";

startPage();
