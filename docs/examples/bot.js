#!/usr/bin/env node
// A complete nimmt bot in JavaScript: node only, no packages. See docs/BOTS.md.
//
//   nimmt-bot localhost --exec "node docs/examples/bot.js" --create --add-bots 3
//
// nimmt-bot writes one JSON object a line to our stdin: a question ("ask" says which
// decision, "legal" lists the allowed answers). We answer each with one JSON line on
// stdout: {"card": N} to commit or pick a card, {"row": N} to choose a row (or a tied
// place). Debug output goes to stderr: stdout carries answers only.
"use strict";
const readline = require("node:readline");

// Bullheads of a card, and of a row of cards.
const bullheads = (c) => (c === 55 ? 7 : c % 11 === 0 ? 5 : c % 10 === 0 ? 3 : c % 5 === 0 ? 2 : 1);
const rowHeads = (row) => row.reduce((sum, c) => sum + bullheads(c), 0);

// What playing `card` may cost now: the row it would end (a sixth card takes the row),
// or the cheapest row if it fits no row (it is lower than every row's last card).
function cost(q, card) {
  let best = -1;
  q.rows.forEach((row, i) => {
    const last = row[row.length - 1];
    if (last < card && (best < 0 || last > q.rows[best][q.rows[best].length - 1])) best = i;
  });
  if (best < 0) return Math.min(...q.row_bullheads) + 0.5;
  const row = q.rows[best];
  if (row.length >= 5) return rowHeads(row) + 0.5;
  return (row.length / 5) * rowHeads(row) * 0.3 + (card - row[row.length - 1]) / 200;
}

function decide(q) {
  switch (q.ask) {
    case "commit": // the card least likely to take a row
      return { card: q.legal.reduce((a, b) => (cost(q, b) < cost(q, a) ? b : a)) };
    case "row": // the row with the fewest bullheads
      return { row: q.legal.reduce((a, b) => (q.row_bullheads[b] < q.row_bullheads[a] ? b : a)) };
    case "tie": { // a tied place in a row that is not full, then the cheapest
      const score = (p) => (q.rows[p.row].length >= 5 ? 100 : 0) + q.row_bullheads[p.row];
      const place = q.legal.reduce((a, b) => (score(b) < score(a) ? b : a));
      return { row: place.row, end: place.end };
    }
    case "draft": // the card with the fewest bullheads
      return { card: q.legal.reduce((a, b) => (bullheads(b) < bullheads(a) ? b : a)) };
    default: // a decision this bot does not know (none today): the first legal card
      return { card: q.legal[0] };
  }
}

const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  const q = JSON.parse(line);
  process.stdout.write(JSON.stringify(decide(q)) + "\n");
  // console.error(q.ask, q.legal);  // debug output: stderr (nimmt-bot shows it)
});
input.on("close", () => process.exit(0)); // stdin closed: the games are over
