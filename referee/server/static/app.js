// Spit referee page: frames and overlay from the WebSocket (newest frame wins), calls, controls, calibration, overrules.
"use strict";

const $ = (id) => document.getElementById(id);
const canvas = $("video");
const ctx = canvas.getContext("2d");
const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const FLASH_MS = { play: 1200, move_to_space: 1200, turn_up: 900, illegal_play: 3000, premature_spit: 3000 };
const RECENT_S = 4; // calls older than this (a page opened late) go into the log without flashing

const state = {
  status: "", rules: "", game: -1, calibration: null, frame: null, events: [], overruled: new Map(),
  flashes: [], verdicts: {}, clicks: [], calibrating: false, paused: false, audio: null, sound: false,
  decoding: false, pending: null, bitmap: null,
};
// What a test or the benchmark reads: frames drawn, capture -> drawn latencies (ms), calls shown.
window.spitStats = { frames: 0, latencies: [], spitBanners: 0, illegalFlags: 0 };

// ------------------------------------------------------------------ words

function card(code) {
  if (!code || code === "back") return code === "back" ? "a face-down card" : "?";
  if (code === "JK") return "Joker";
  const suit = code.slice(-1);
  return code.slice(0, -1) + (SUITS[suit] || suit);
}

function describe(e) {
  switch (e.type) {
    case "play": return `${e.player} plays ${card(e.card)} from ${e.from} onto ${e.to}`;
    case "illegal_play": return `Illegal: ${e.player} put ${card(e.card)} on ${e.to} — ${e.reason}`;
    case "turn_up": return `${e.player} turns up ${card(e.card)} on ${e.pile}`;
    case "move_to_space": return `${e.player} moves ${card(e.card)} from ${e.from} to the space ${e.to}`;
    case "spit_call": return "SPIT! Nobody can move";
    case "spit": return "Spit: " + Object.entries(e.cards).map(([p, c]) => `${card(c)} on ${p}`).join(", ");
    case "premature_spit": return `${e.player} spat too early: a move was still possible (${typeof e.move === "string" ? e.move : JSON.stringify(e.move)})`;
    case "race": return `Race on ${e.pile}: ${e.first} first, ${e.second} second, by ${ms(e.margin_ms)}`;
    case "slap": return `Slap: ${e.winner} wins pile ${e.pile} by ${ms(e.margin_ms)}`;
    case "deal_end": return `Deal over: ${e.player} emptied their stock — ` + counts(e.counts);
    case "game_end": return e.winner ? `Game over: ${e.winner} wins` : "Game over: a tie";
    case "layout": return "Cards dealt" + (e.counts ? " — " + counts(e.counts) : "");
    case "overrule": return `Overruled call #${e.corrects} (${e.call.replace("_", " ")}): now ${e.verdict}`;
    case "withdraw": return `Withdrawn: ${e.player}'s ${card(e.card)} onto ${e.to} — ${e.reason}`;
    default: return e.type.replace(/_/g, " ");
  }
}

const ms = (v) => (v === null || v === undefined ? "an unknown margin" : `${Math.round(v)} ms`);
const counts = (c) => Object.entries(c || {}).map(([p, n]) => `${p} ${n}`).join(", ");

// ------------------------------------------------------------------ sound (generated, no files)

function beep() {
  if (!state.sound) return;
  try {
    state.audio = state.audio || new AudioContext();
    const a = state.audio, now = a.currentTime;
    [[880, 0], [1175, 0.16]].forEach(([f, at]) => {
      const osc = a.createOscillator(), gain = a.createGain();
      osc.type = "square"; osc.frequency.value = f;
      gain.gain.setValueAtTime(0.0001, now + at);
      gain.gain.exponentialRampToValueAtTime(0.25, now + at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + at + 0.18);
      osc.connect(gain).connect(a.destination);
      osc.start(now + at); osc.stop(now + at + 0.2);
    });
  } catch (err) { /* no audio device: the banner is enough */ }
}

// ------------------------------------------------------------------ calls

let spitTimer = 0, flagTimer = 0;

function showSpit() {
  const banner = $("spit-banner");
  banner.classList.add("show");
  window.spitStats.spitBanners += 1;
  clearTimeout(spitTimer);
  spitTimer = setTimeout(() => banner.classList.remove("show"), 3000);
  beep();
}

const FLAG_RANK = { legal: 0, dispute: 1, illegal: 2 };
let flagUntil = 0, flagRank = 0;

// A call's strip over the video; a lesser one (a legal play) does not hide an illegal one still showing.
function showFlag(kind, title, reason, ms) {
  const flag = $("flag");
  const now = performance.now();
  if (now < flagUntil && FLAG_RANK[kind] < flagRank) return;
  flagUntil = now + ms; flagRank = FLAG_RANK[kind];
  flag.className = `flag show ${kind}`;
  flag.dataset.kind = kind;
  flag.textContent = title;
  if (reason) {
    const span = document.createElement("span");
    span.className = "reason"; span.textContent = reason;
    flag.appendChild(span);
  }
  if (kind === "illegal") window.spitStats.illegalFlags += 1;
  clearTimeout(flagTimer);
  flagTimer = setTimeout(() => { flag.className = "flag"; }, ms);
}

function showDispute(e) {
  $("dispute").classList.remove("hidden");
  $("dispute-text").textContent = describe(e);
  const img = $("dispute-evidence");
  if (e.evidence_url) { img.src = e.evidence_url; img.classList.remove("hidden"); } else { img.classList.add("hidden"); }
}

function react(e, now) {
  const when = e.called_at ?? e.t;
  const fresh = now - when <= RECENT_S;
  if (e.type === "race" || e.type === "slap") showDispute(e);
  if (!fresh) return;
  const until = performance.now() + (FLASH_MS[e.type] || 1200);
  if (e.type === "play" || e.type === "move_to_space") {
    state.flashes.push({ zone: e.to, colour: "46, 204, 113", until });
    showFlag("legal", `✓ ${e.player}: ${card(e.card)} on ${e.to}`, "", 1400);
  } else if (e.type === "turn_up") {
    state.flashes.push({ zone: e.pile, colour: "77, 163, 255", until });
  } else if (e.type === "illegal_play") {
    state.flashes.push({ zone: e.to, colour: "255, 60, 60", until });
    showFlag("illegal", `✗ Illegal: ${e.player} put ${card(e.card)} on ${e.to}`, e.reason, 4500);
  } else if (e.type === "premature_spit") {
    showFlag("illegal", `✗ ${e.player} spat too early`, "a move was still possible", 4500);
  } else if (e.type === "spit_call") {
    showSpit();
  } else if (e.type === "spit") {
    clearTimeout(spitTimer); // the stalemate is over
    spitTimer = setTimeout(() => $("spit-banner").classList.remove("show"), 600);
  } else if (e.type === "race" || e.type === "slap") {
    showFlag("dispute", describe(e), "", 4500);
  } else if (e.type === "game_end") {
    showFlag("legal", describe(e), "", 6000);
  }
}

function addEvents(list, from, now) {
  if (from !== state.events.length) return; // a gap: the next state message resets the log
  const log = $("log");
  for (const e of list) {
    state.events.push(e);
    const li = document.createElement("li");
    li.className = e.type;
    li.dataset.index = e.index; li.dataset.type = e.type; li.dataset.t = e.t; li.dataset.card = e.card || "";
    const t = document.createElement("span"); t.className = "t"; t.textContent = `${e.t.toFixed(1)} s`;
    const what = document.createElement("span"); what.className = "what"; what.textContent = describe(e);
    li.append(t, what);
    if (state.verdicts[e.type]) {
      const b = document.createElement("button"); b.type = "button"; b.textContent = "overrule";
      b.addEventListener("click", () => openOverrule(e));
      li.append(b);
    } else {
      li.append(document.createElement("span"));
    }
    log.append(li);
    if (e.type === "overrule") {
      const target = log.querySelector(`li[data-index="${e.corrects}"]`);
      if (target) { target.classList.add("overruled"); const b = target.querySelector("button"); if (b) b.remove(); }
    }
    if (e.type === "withdraw") { // the referee's own call taken back: struck through like an overruled one
      const target = log.querySelector(`li[data-type="${e.call}"][data-t="${e.t}"][data-card="${e.card}"]`);
      if (target) { target.classList.add("overruled"); const b = target.querySelector("button"); if (b) b.remove(); }
    }
    react(e, now);
  }
  $("event-count").textContent = `(${state.events.length})`;
}

function resetLog() {
  state.events = []; state.flashes = [];
  $("flag").className = "flag"; $("flag").textContent = ""; flagUntil = 0;
  $("spit-banner").classList.remove("show");
  $("log").replaceChildren();
  $("dispute").classList.add("hidden");
  $("event-count").textContent = "";
}

// ------------------------------------------------------------------ overrule

function openOverrule(e) {
  const dialog = $("overrule-dialog");
  $("overrule-call").textContent = `#${e.index} at ${e.t.toFixed(2)} s: ${describe(e)}`;
  $("overrule-error").textContent = "";
  const box = $("overrule-verdicts");
  box.replaceChildren();
  for (const v of state.verdicts[e.type] || []) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = v === "A" || v === "B" ? `${v} won` : v;
    b.addEventListener("click", async () => {
      const r = await fetch("/api/overrule", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ event: e.index, verdict: v }) });
      if (r.ok) dialog.close(); else $("overrule-error").textContent = (await r.json()).detail;
    });
    box.append(b);
  }
  dialog.showModal();
}

// ------------------------------------------------------------------ drawing

function scale() { return state.frame ? canvas.width / state.frame.width : 1; }

function path(points, s) {
  ctx.beginPath();
  points.forEach(([x, y], i) => (i ? ctx.lineTo(x * s, y * s) : ctx.moveTo(x * s, y * s)));
  ctx.closePath();
}

function centre(points) {
  const n = points.length;
  return [points.reduce((a, p) => a + p[0], 0) / n, points.reduce((a, p) => a + p[1], 0) / n];
}

function label(text, x, y, size, fg, bg) {
  ctx.font = `800 ${size}px system-ui, "DejaVu Sans", sans-serif`;
  const w = ctx.measureText(text).width + size * 0.6, h = size * 1.3;
  ctx.fillStyle = bg;
  ctx.beginPath(); ctx.roundRect(x - w / 2, y - h / 2, w, h, size * 0.3); ctx.fill();
  ctx.fillStyle = fg; ctx.textAlign = "center"; ctx.textBaseline = "middle";
  ctx.fillText(text, x, y + size * 0.05);
}

function drawOverlay(f) {
  const s = scale(), cal = state.calibration, now = performance.now();
  const unit = canvas.width / 1280;
  if (cal && cal.calibrated) {
    ctx.lineWidth = 3 * unit; ctx.strokeStyle = "rgba(255, 213, 0, .95)";
    path(cal.play_area_px, s); ctx.stroke();
    const hidden = new Set(f.hands.flatMap((h) => h.over));
    for (const [name, poly] of Object.entries(cal.zones)) {
      path(poly, s);
      if (hidden.has(name)) { ctx.fillStyle = "rgba(120, 130, 145, .35)"; ctx.fill(); }
      ctx.lineWidth = 1.5 * unit; ctx.strokeStyle = "rgba(255, 255, 255, .55)"; ctx.stroke();
    }
    state.flashes = state.flashes.filter((fl) => fl.until > now);
    for (const fl of state.flashes) {
      const poly = cal.zones[fl.zone];
      if (!poly) continue;
      const a = Math.min(1, (fl.until - now) / 600);
      path(poly, s); ctx.fillStyle = `rgba(${fl.colour}, ${0.45 * a})`; ctx.fill();
      ctx.lineWidth = 6 * unit; ctx.strokeStyle = `rgba(${fl.colour}, ${a})`; ctx.stroke();
    }
    for (const [name, poly] of Object.entries(cal.zones)) {
      const [cx, cy] = centre(poly);
      const seen = f.zones[name];
      ctx.font = `700 ${13 * unit}px system-ui, sans-serif`;
      ctx.fillStyle = "rgba(255, 255, 255, .8)"; ctx.textAlign = "center"; ctx.textBaseline = "bottom";
      const top = Math.min(...poly.map((p) => p[1]));
      ctx.fillText(name, cx * s, top * s - 2 * unit);
      if (seen && seen !== "empty" && seen !== "occluded") {
        if (seen === "back") label("▮", cx * s, cy * s, 20 * unit, "#9fb0c4", "rgba(20, 26, 34, .8)");
        else {
          const red = seen.endsWith("H") || seen.endsWith("D");
          label(card(seen), cx * s, cy * s, 26 * unit, red ? "#d11" : "#111", "rgba(255, 255, 255, .93)");
        }
      }
    }
  }
  const markers = state.calibrating && cal && cal.calibrated ? cal.markers_px : f.markers;
  for (const [id, quad] of Object.entries(markers || {})) {
    path(quad, s); ctx.lineWidth = 3 * unit; ctx.strokeStyle = "#ff3df5"; ctx.stroke();
    const [cx, cy] = centre(quad);
    label(`marker ${id}`, cx * s, cy * s - 26 * unit, 14 * unit, "#fff", "rgba(160, 20, 150, .9)");
  }
  if (state.calibrating) {
    state.clicks.forEach(([x, y], i) => {
      ctx.fillStyle = "#ffc53d"; ctx.beginPath(); ctx.arc(x * s, y * s, 7 * unit, 0, 2 * Math.PI); ctx.fill();
      label(String(i + 1), x * s + 18 * unit, y * s - 18 * unit, 18 * unit, "#111", "#ffc53d");
    });
    if (state.clicks.length > 1) {
      ctx.lineWidth = 2 * unit; ctx.strokeStyle = "#ffc53d"; ctx.beginPath();
      state.clicks.forEach(([x, y], i) => (i ? ctx.lineTo(x * s, y * s) : ctx.moveTo(x * s, y * s)));
      if (state.clicks.length === 4) ctx.closePath();
      ctx.stroke();
    }
  }
}

function draw(bitmap, f) {
  const width = 1280, height = Math.round(width * f.height / f.width);  // the server sends frames at most 1280 wide
  if (canvas.width !== width || canvas.height !== height) { canvas.width = width; canvas.height = height; }
  if (state.bitmap) state.bitmap.close();
  state.bitmap = bitmap; state.frame = f;
  render();
  const latency = Date.now() - f.captured_ms;
  const stats = window.spitStats;
  stats.frames += 1;
  stats.latencies.push(latency);
  if (stats.latencies.length > 3000) stats.latencies.splice(0, 1000);
  meter(f, latency);
}

// The newest frame with the overlay (again on a click, as no frames come while paused).
function render() {
  if (!state.bitmap) return;
  ctx.drawImage(state.bitmap, 0, 0, canvas.width, canvas.height);
  drawOverlay(state.frame);
}

let fpsCount = 0, fpsSince = performance.now(), shownLatency = [];

function meter(f, latency) {
  $("clock").textContent = `t = ${f.t.toFixed(2)} s`;
  shownLatency.push(latency); fpsCount += 1;
  const now = performance.now();
  if (now - fpsSince > 1000) {
    const sorted = shownLatency.slice().sort((a, b) => a - b);
    $("latency").textContent = `latency ${Math.round(sorted[Math.floor(sorted.length / 2)])} ms`;
    $("fps").textContent = `${(fpsCount * 1000 / (now - fpsSince)).toFixed(0)} fps`;
    fpsCount = 0; fpsSince = now; shownLatency = [];
  }
  const c = f.counts || {};
  for (const p of ["A", "B"]) {
    $(`count-${p}`).textContent = c[p] ? c[p].total : "–";
    $(`stock-${p}`).textContent = c[p] ? `cards · ${c[p].stock} in stock` : "cards";
  }
}

// Only the newest frame is decoded: one decode at a time, a frame arriving meanwhile replaces the waiting one.
async function decodeLoop() {
  if (state.decoding) return;
  state.decoding = true;
  while (state.pending) {
    const { f, blob } = state.pending;
    state.pending = null;
    try { draw(await createImageBitmap(blob), f); } catch (err) { console.warn("frame not drawn:", err); }
  }
  state.decoding = false;
}

// ------------------------------------------------------------------ messages

function onState(m) {
  if (m.game !== state.game) { state.game = m.game; resetLog(); state.calibration = null; }
  state.status = m.status; state.verdicts = m.verdicts;
  const pill = $("status");
  pill.dataset.status = m.status;
  pill.textContent = {
    preparing: m.progress !== null ? `Preparing demo ${Math.round(100 * m.progress)} %` : "Preparing…",
    looking: "Looking for markers", calibrate: "Needs calibration", running: "Refereeing",
    paused: "Paused", camera_lost: "Camera lost", ended: "Video ended", error: "Error",
  }[m.status] || m.status;
  const select = $("rules");
  if (select.options.length !== m.rule_sets.length) {
    select.replaceChildren(...m.rule_sets.map((r) => new Option(r, r)));
  }
  select.value = m.rules;
  state.paused = m.status === "paused";
  $("pause").textContent = state.paused ? "Resume" : "Pause";
  $("source").textContent = `${m.source} · ${m.rules} · game ${m.game}`;
  $("cards-by").textContent = `cards read by ${m.cards_read_by}`;
  const prep = m.status === "preparing";
  $("prepare").classList.toggle("hidden", !prep);
  if (prep) {
    $("prepare-bar").value = m.progress || 0;
    $("prepare-text").textContent = m.message || "Preparing…";
  }
  const lost = m.status === "camera_lost";  // the whole video covered: what it shows is old
  $("camera-lost").classList.toggle("hidden", !lost);
  if (lost) $("camera-lost-text").textContent = m.message;
  const msg = $("message");
  const show = !prep && !lost && m.message && m.status !== "running";
  msg.classList.toggle("hidden", !show);
  msg.textContent = show ? m.message : "";
  if (m.status === "calibrate" && !state.calibrating) openCalibration();
}

function onFrame(buffer) {
  const view = new DataView(buffer);
  const n = view.getUint32(0);
  const f = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 4, n)));
  if (f.calibration) state.calibration = f.calibration;
  addEvents(f.events, f.events_from, f.t);
  state.pending = { f, blob: new Blob([new Uint8Array(buffer, 4 + n)], { type: "image/jpeg" }) };
  decodeLoop();
}

function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  ws.binaryType = "arraybuffer";
  ws.onmessage = (msg) => {
    if (typeof msg.data !== "string") { onFrame(msg.data); return; }
    const m = JSON.parse(msg.data);
    if (m.kind === "state") onState(m);
    else if (m.kind === "events") addEvents(m.events, m.events_from, state.frame ? state.frame.t : 0);
  };
  ws.onclose = () => {
    $("status").textContent = "reconnecting…"; $("status").dataset.status = "error";
    state.game = -1;
    setTimeout(connect, 1000);
  };
}

// ------------------------------------------------------------------ controls

async function control(body) {
  const r = await fetch("/api/control", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (!r.ok) alert((await r.json()).detail);
}

$("pause").addEventListener("click", () => control({ action: state.paused ? "resume" : "pause" }));
$("new-game").addEventListener("click", () => control({ action: "new_game" }));
$("rules").addEventListener("change", (ev) => control({ action: "new_game", rules: ev.target.value }));
$("sound").addEventListener("click", () => {
  state.sound = !state.sound;
  $("sound").textContent = state.sound ? "Sound on" : "Sound off";
  $("sound").setAttribute("aria-pressed", String(state.sound));
  if (state.sound) { state.audio = state.audio || new AudioContext(); state.audio.resume(); }
});

function openCalibration() {
  state.calibrating = true; state.clicks = [];
  $("calibration-panel").classList.remove("hidden");
  $("calibration-result").textContent = "";
  $("calibration-send").disabled = true;
  canvas.classList.add("clicking");
  const cal = state.calibration;
  if (cal && cal.play_size_cm) { $("width-cm").value = cal.play_size_cm[0]; $("depth-cm").value = cal.play_size_cm[1]; }
}

function closeCalibration() {
  state.calibrating = false; state.clicks = [];
  $("calibration-panel").classList.add("hidden");
  canvas.classList.remove("clicking");
}

$("calibrate").addEventListener("click", () => (state.calibrating ? closeCalibration() : openCalibration()));
$("calibration-close").addEventListener("click", closeCalibration);
$("calibration-clear").addEventListener("click", () => { state.clicks = []; $("calibration-send").disabled = true; render(); });
canvas.addEventListener("click", (ev) => {
  if (!state.calibrating || !state.frame || state.clicks.length >= 4) return;
  const r = canvas.getBoundingClientRect();
  const x = (ev.clientX - r.left) / r.width * state.frame.width, y = (ev.clientY - r.top) / r.height * state.frame.height;
  state.clicks.push([Math.round(x * 10) / 10, Math.round(y * 10) / 10]);
  $("calibration-send").disabled = state.clicks.length !== 4;
  render();
});
$("calibration-send").addEventListener("click", async () => {
  const body = { corners_px: state.clicks, width_cm: Number($("width-cm").value), depth_cm: Number($("depth-cm").value) };
  const r = await fetch("/api/calibration", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const data = await r.json();
  if (r.ok) { closeCalibration(); return; }
  const detail = Array.isArray(data.detail) ? data.detail.map((d) => `${d.loc.slice(1).join(".")}: ${d.msg}`).join("; ") : data.detail;
  $("calibration-result").textContent = `Not calibrated: ${detail}`;
});

connect();
