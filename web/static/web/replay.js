/* The replay viewer: shows the plies web.boards.replay computed with the referee. No rules here.
   The page holds the board SVG (every point a <g data-point data-piece> with a <use class="piece">),
   the JSON in <script type="application/json" id="replay-data">, and, for a game in progress,
   data-live-url on the [data-replay] element: polled with ?since=N for the plies after N. */
(function () {
  "use strict";
  var root = document.querySelector("[data-replay]");
  var source = document.getElementById("replay-data");
  if (!root || !source) return;
  var data = JSON.parse(source.textContent);
  var svg = root.querySelector("svg");
  var family = data.game.indexOf("fidchell") === 0 ? "fidchell" : data.game;
  var points = {};
  Array.prototype.forEach.call(svg.querySelectorAll("[data-point]"), function (g) {
    points[g.getAttribute("data-point")] = g;
  });
  var tallies = {
    white: svg.querySelector('[data-tally="white"]'),
    black: svg.querySelector('[data-tally="black"]')
  };
  var status = root.querySelector("[data-replay-status]");
  var slider = root.querySelector("[data-replay-slider]");
  var controls = root.querySelector("[data-replay-controls]");
  var liveUrl = root.getAttribute("data-live-url");
  var plies = [], states = [], shown = -1;
  var MARKS = ["is-from", "is-via", "is-to", "is-captured"];

  /* The board after each ply: the diffs applied in order, the pieces each side lost so far. */
  function append(entries) {
    entries.forEach(function (entry) {
      var last = states[states.length - 1];
      var state = last ? {
        cells: Object.assign({}, last.cells), hands: last.hands,
        lost: { white: last.lost.white.slice(), black: last.lost.black.slice() }
      } : { cells: {}, hands: null, lost: { white: [], black: [] } };
      (entry.clear || []).forEach(function (name) { delete state.cells[name]; });
      Object.assign(state.cells, entry.set || {});
      if (entry.hands) state.hands = entry.hands;
      (entry.taken || []).forEach(function (code) {
        state.lost[code.charAt(0) === "b" ? "black" : "white"].push(code.replace("!", ""));
      });
      plies.push(entry);
      states.push(state);
    });
    slider.max = String(plies.length - 1);
  }

  function capital(word) { return word.charAt(0).toUpperCase() + word.slice(1); }

  function tallyText(side, state) {
    var parts = [];
    if (state.hands) parts.push(state.hands[side === "white" ? 0 : 1] + " in hand");
    var lost = state.lost[side];
    parts.push("lost " + lost.length + " " + lost.map(function (c) { return data.glyphs[c] || "?"; }).join(""));
    return (capital(side) + ": " + parts.join(", ")).replace(/\s+$/, "");
  }

  function statusText(i) {
    var entry = plies[i], last = plies.length - 1;
    var text = "Ply " + i + " of " + last + (entry.action ? ": " + entry.action : "") + ".";
    var outcome = data.outcome;
    if (i === last && outcome) {
      text += (outcome.winner === "none" ? " Draw" : " " + capital(outcome.winner) + " wins") +
        " (" + outcome.reason + ").";
    } else {
      text += " " + capital(entry.turn) + " to move.";
    }
    return text;
  }

  function show(i) {
    i = Math.max(0, Math.min(plies.length - 1, i));
    shown = i;
    var state = states[i], entry = plies[i];
    var ghosts = {}, marks = {};
    (entry.captured || []).forEach(function (name, k) {
      ghosts[name] = entry.taken[k];
      marks[name] = ["is-captured"];
    });
    var move = entry.move || [];
    move.forEach(function (name, k) {
      var mark = k === move.length - 1 ? "is-to" : k === 0 ? "is-from" : "is-via";
      (marks[name] = marks[name] || []).push(mark);
    });
    Object.keys(points).forEach(function (name) {
      var g = points[name], code = state.cells[name] || "", drawn = code || ghosts[name] || "";
      g.setAttribute("data-piece", code);
      var use = g.querySelector("use");
      if (drawn) use.setAttribute("href", "#" + family + "-" + drawn.replace("!", ""));
      else use.removeAttribute("href");
      MARKS.forEach(function (mark) { g.classList.remove(mark); });
      (marks[name] || []).forEach(function (mark) { g.classList.add(mark); });
    });
    tallies.white.textContent = tallyText("white", state);
    tallies.black.textContent = tallyText("black", state);
    status.textContent = statusText(i);
    if (liveUrl && !data.over) {
      var badge = document.createElement("span");
      badge.className = "replay-live";
      badge.textContent = "Live";
      status.appendChild(document.createTextNode(" "));
      status.appendChild(badge);
    }
    slider.value = String(i);
    controls.querySelector('[data-step="start"]').disabled = i === 0;
    controls.querySelector('[data-step="back"]').disabled = i === 0;
    controls.querySelector('[data-step="forward"]').disabled = i === plies.length - 1;
    controls.querySelector('[data-step="end"]').disabled = i === plies.length - 1;
  }

  function step(how) {
    var to = { start: 0, back: shown - 1, forward: shown + 1, end: plies.length - 1 }[how];
    if (to !== undefined) show(to);
  }

  controls.addEventListener("click", function (event) {
    var button = event.target.closest("[data-step]");
    if (button) step(button.getAttribute("data-step"));
  });
  slider.addEventListener("input", function () { show(parseInt(slider.value, 10)); });
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target.closest && event.target.closest("input, textarea, select, [contenteditable]")) return;
    var how = { ArrowLeft: "back", ArrowRight: "forward", Home: "start", End: "end" }[event.key];
    if (!how) return;
    event.preventDefault();
    step(how);
  });

  /* A game in progress: fetch the plies after the last one we have, every second, until it ends. */
  function poll(full) {
    var url = liveUrl + (full ? "" : (liveUrl.indexOf("?") < 0 ? "?" : "&") + "since=" + (plies.length - 1));
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin", cache: "no-store" })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (update) {
        var following = shown === plies.length - 1;
        if (update.first === 0) { plies = []; states = []; }
        if (update.first !== plies.length) { setTimeout(poll, 1000, true); return; }
        append(update.plies);
        data.over = update.over;
        data.outcome = update.outcome;
        show(following ? plies.length - 1 : shown);
        if (!update.over) setTimeout(poll, 1000, false);
      })
      .catch(function () { setTimeout(poll, 5000, false); });
  }

  append(data.plies);
  controls.hidden = false;
  show(plies.length - 1);
  if (liveUrl && !data.over) setTimeout(poll, 1000, false);
})();
