/* Waiting on the board page: the table's cursor sets the pace, so only short waits
   between the parts of one step are left here. */

export const wait = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });
