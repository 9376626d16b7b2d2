/* The replay viewer: shows the plies web.boards.replay computed with the referee. No rules here.
   The page holds the board SVG (every point a <g data-point data-piece> with a <use class="piece">),
   the JSON in <script type="application/json" id="replay-data">, and, for a game in progress,
   data-live-url on the [data-replay] element: polled with ?since=N for the plies after N.
   The live page of a match adds data-live-events (its Server-Sent Events: every ply as it is played, then the
   match's next game), data-live-poll (where game N's JSON is, for browsers where EventSource fails),
   data-live-game and data-live-games; the viewer then follows game after game by itself. */
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
  var liveEvents = root.getAttribute("data-live-events");
  var livePoll = root.getAttribute("data-live-poll");
  var liveGame = parseInt(root.getAttribute("data-live-game") || "1", 10);
  var liveGames = parseInt(root.getAttribute("data-live-games") || "1", 10);
  var PAUSE_MS = 3000;  /* a finished game stays on the board this long before the match's next one replaces it */
  var overAt = 0, waiting = false, queue = [];
  var plies = [], states = [], shown = -1;
  var MARKS = ["is-from", "is-via", "is-to", "is-captured"];
  var moveList = document.querySelector("[data-movelist]");  /* the game page's list of moves, if any */

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
    if ((liveUrl || liveEvents) && !data.over) {
      var badge = document.createElement("span");
      badge.className = "replay-live";
      badge.textContent = "Live";
      status.appendChild(document.createTextNode(" "));
      status.appendChild(badge);
    }
    markMove(i);
    slider.value = String(i);
    controls.querySelector('[data-step="start"]').disabled = i === 0;
    controls.querySelector('[data-step="back"]').disabled = i === 0;
    controls.querySelector('[data-step="forward"]').disabled = i === plies.length - 1;
    controls.querySelector('[data-step="end"]').disabled = i === plies.length - 1;
  }

  /* The move that led to ply i marked in the move list (none at ply 0), and scrolled into the list's view: the
     list's own scroll only, so the page does not jump. */
  function markMove(i) {
    if (!moveList) return;
    var before = moveList.querySelector(".is-current");
    if (before) { before.classList.remove("is-current"); before.removeAttribute("aria-current"); }
    var item = moveList.querySelector('[data-ply="' + i + '"]');
    if (!item) return;
    item.classList.add("is-current");
    item.setAttribute("aria-current", "step");
    if (item.offsetTop < moveList.scrollTop + 8) moveList.scrollTop = item.offsetTop - 8;  /* with the top padding */
    else if (item.offsetTop + item.offsetHeight > moveList.scrollTop + moveList.clientHeight) {
      moveList.scrollTop = item.offsetTop + item.offsetHeight - moveList.clientHeight;
    }
  }

  if (moveList) {
    moveList.addEventListener("click", function (event) {
      var item = event.target.closest("[data-ply]");
      if (item) show(parseInt(item.getAttribute("data-ply"), 10));
    });
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

  /* An update (web.boards.replay's plies after the ones we have, with the game's number and names on the live
     page): applied, or queued while a finished game is still shown. False when it does not follow on from what we
     have, so that the whole game must be asked for again. */
  function apply(update) {
    var number = update.number || liveGame;
    if (number !== liveGame || waiting) {
      var wait = waiting ? 1 : overAt ? PAUSE_MS - (Date.now() - overAt) : 0;
      if (wait > 0) {
        queue.push(update);
        if (!waiting) { waiting = true; setTimeout(flush, wait); }
        return true;
      }
      liveGame = number;
      plies = []; states = [];
      data.over = false; data.outcome = null; overAt = 0;
      shown = -1;
    }
    var following = shown === plies.length - 1;
    if (update.first === 0) { plies = []; states = []; }
    if (update.first !== plies.length) return false;
    name(update);
    append(update.plies);
    data.over = update.over;
    data.outcome = update.outcome;
    if (data.over && !overAt) overAt = Date.now();
    show(following ? plies.length - 1 : shown);
    return true;
  }

  function flush() {
    var pending = queue;
    queue = []; waiting = false; overAt = 0;
    pending.forEach(apply);
  }

  /* The game's number and its bots' names in the page's heading line, where it has them. */
  function name(update) {
    [["number", update.number], ["white", update.white], ["black", update.black]].forEach(function (pair) {
      var element = document.querySelector("[data-live-" + pair[0] + "]");
      if (element && pair[1] !== undefined) element.textContent = String(pair[1]);
    });
  }

  /* The live page: the stream's events as they come. EventSource reconnects by itself when a (bounded) stream
     ends, sending the last event's id; it gives up only on an answer that is not a stream (a refusal, a 503 from
     a server that cannot hold streams), and then the page polls. */
  function follow() {
    if (typeof EventSource === "undefined") { setTimeout(poll, 1000, false); return; }
    var source = new EventSource(liveEvents + "?game=" + liveGame + "&have=" + plies.length);
    source.addEventListener("plies", function (event) {
      if (!apply(JSON.parse(event.data))) { source.close(); plies = []; states = []; follow(); }
    });
    source.addEventListener("end", function () { source.close(); });
    source.addEventListener("error", function () {
      if (source.readyState === EventSource.CLOSED) setTimeout(poll, 1000, false);
    });
  }

  function pollUrl(number) { return livePoll ? livePoll + number + ".json" : liveUrl; }

  /* A game in progress, where there is no stream: fetch the plies after the last one we have, every second,
     until it ends; on the live page then the match's next game, once it has started (404 until then). */
  function poll(full) {
    var next = data.over && liveEvents && liveGame < liveGames;
    var url = pollUrl(next ? liveGame + 1 : liveGame);
    if (!full && !next) url += (url.indexOf("?") < 0 ? "?" : "&") + "since=" + (plies.length - 1);
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin", cache: "no-store" })
      .then(function (response) {
        if (next && response.status === 404) return null;
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (update) {
        if (update === null) { setTimeout(poll, 2000, false); return; }
        if (!apply(update)) { setTimeout(poll, 1000, true); return; }
        if (!data.over || (liveEvents && liveGame < liveGames)) setTimeout(poll, 1000, false);
      })
      .catch(function () { setTimeout(poll, 5000, false); });
  }

  append(data.plies);
  controls.hidden = false;
  show(plies.length - 1);
  if (data.over) overAt = Date.now();
  if (liveEvents) follow();
  else if (liveUrl && !data.over) setTimeout(poll, 1000, false);
})();
