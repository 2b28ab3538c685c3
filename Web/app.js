// SPDX-License-Identifier: Apache-2.0
// The live page: acceld's own stream (/ws/acceld) drawn as AccelerometerGraph
// draws it, plus a level, the orientation, the device and an event log;
// with a gyroscope, its panels too (gyroscope.js). What a person reads is
// named and timed by words.js; the plot's labels are placed by labels.js.
// No framework and nothing fetched from elsewhere: the board may be offline.
"use strict";

const WINDOW_SECONDS = 10;
const COLORS = { x: "#d33", y: "#2a2", z: "#36c" };
const words = window.acceldWords;
const SPAN_COLORS = { shake: "rgba(230,140,0,0.18)", freefall: "rgba(220,0,0,0.18)", movement: "rgba(0,90,220,0.12)", tap: "rgba(120,0,160,0.35)", gap: "rgba(120,120,120,0.25)" };

// What a test (or a curious person with the console open) can read.
const live = window.acceldLive = {
  link: "connecting", frames: 0, framesPerSecond: 0, redrawsPerSecond: 0, gaps: 0, lost: 0,
  orientation: "unknown", device: null, events: [], gyroscope: false, rotationRate: null, rotationRedraws: 0,
  plotLabels: [],  // the plot's labels as last drawn: boxes in canvas pixels
  spectra: 0, spectrum: null,  // vibration windows drawn, and the last one's strongest bin
};

const frames = [];          // {seq, t, acc, gravity, user, and with a gyroscope rate, quaternion, yaw}
const spans = [];           // {kind, start, end, label}
let openShake = null, openFall = null;
let frameStep = 1, lastSeq = null, view = "acc", paused = false;

// ---- The connection: reconnects by itself, with back-off up to 5 s ----
let socket = null, backoff = 500;
function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${scheme}//${location.host}/ws/acceld`);
  socket.onopen = () => { backoff = 500; };
  socket.onmessage = (message) => {
    for (const line of message.data.split("\n")) if (line) handle(JSON.parse(line));
  };
  socket.onclose = () => {
    setLink("gateway-down", "gateway not reachable: retrying");
    setTimeout(connect, backoff);
    backoff = Math.min(backoff * 2, 5000);
  };
}

function setLink(state, text) {
  live.link = state;
  const badge = document.getElementById("link");
  badge.dataset.state = state;
  badge.textContent = text;
}

function handle(m) {
  switch (m.class) {
    case "gateway":
      if (m.daemon === "connected") setLink("live", "live");
      else { setLink("daemon-down", "acceld not running" + (m.reason ? ": " + m.reason : "")); lastSeq = null; }
      break;
    case "hello": showDevice(m.device); lastSeq = null; words.forget(); window.acceldSpectrum.reset(live); break;
    case "device": showDevice(m); if (m.event) log("device", `device ${m.event}: ${m.message || m.state}`, m.t); break;
    case "watch":
      if (m.rate && live.device) frameStep = Math.max(1, Math.round(live.device.rate / m.rate));
      if (m.orientation) showOrientation(m.orientation);
      break;
    case "status": showCounters(m); break;
    case "frame": addFrame(m); break;
    case "orientation":
      showOrientation(m.orientation);
      log("orientation", m.previous === "unknown" ? `orientation settled: ${words.orientation(m.orientation)}`
        : `orientation ${words.orientation(m.previous)} → ${words.orientation(m.orientation)}`, m.t);
      break;
    case "shake":
      if (m.phase === "start") { openShake = { kind: "shake", start: m.start, end: null, label: "shake" }; spans.push(openShake); log("shake", "shake begins", m.t); }
      else if (m.phase === "end") {
        closeSpan(openShake, "shake", m.start, m.start + m.duration, `shake ${m.duration.toFixed(2)} s`); openShake = null;
        log("shake", `shake ends: ${m.duration.toFixed(2)} s, peak ${m.peak.toFixed(2)} g`, m.t);
      }
      break;
    case "freefall":
      if (m.phase === "start") { openFall = { kind: "freefall", start: m.start, end: null, label: "fall?" }; spans.push(openFall); }
      else if (m.phase === "confirmed") { if (openFall) openFall.label = "fall"; log("freefall", "free fall", m.t); }
      else if (m.phase === "withdrawn") { if (openFall) spans.splice(spans.indexOf(openFall), 1); openFall = null; }
      else if (m.phase === "end") {
        closeSpan(openFall, "freefall", m.start, m.start + m.duration, `fall ${m.height.toFixed(2)} m`); openFall = null;
        log("freefall", `free fall ended: ${m.duration.toFixed(2)} s, about ${m.height.toFixed(2)} m`, m.t);
      }
      break;
    case "movement":
      spans.push({ kind: "movement", start: m.start, end: m.start + m.duration, label: m.direction });
      log("movement", `movement ${m.direction}: ${m.duration.toFixed(2)} s, peak ${m.peak.toFixed(2)} g`, m.t);
      break;
    case "tap":
      spans.push({ kind: "tap", start: m.start, end: m.start + 0.03, label: m.count === 2 ? "double tap" : "tap" });
      log("tap", `${m.count === 2 ? "double tap" : "tap"} ${m.direction}, peak ${m.peak.toFixed(2)} g`, m.t);
      break;
    case "vibration": window.acceldSpectrum.add(m, live); break;
    case "machine": log("machine", `machine ${m.state} (was ${m.from})`, m.t); break;
    case "dropped": log("gap", `the gateway could not keep up: ${m.count} messages dropped`); break;
    case "goodbye": setLink("daemon-down", "acceld stopped"); break;
  }
}

function closeSpan(span, kind, start, end, label) {
  if (!span) { span = { kind, start }; spans.push(span); }
  span.start = start; span.end = end; span.label = label;
}

// ---- Frames, and gaps shown as gaps ----
function addFrame(m) {
  words.learn(m.t);
  while (unstamped.length) stamp(...unstamped.shift());
  if (lastSeq !== null && m.seq > lastSeq + frameStep) {
    const missing = Math.round((m.seq - lastSeq) / frameStep) - 1;
    live.gaps += 1; live.lost += missing;
    const last = frames[frames.length - 1];
    spans.push({ kind: "gap", start: last ? last.t : m.t, end: m.t, label: `${missing} lost` });
    log("gap", `${missing} sample${missing === 1 ? "" : "s"} lost (seq ${lastSeq} → ${m.seq})`, m.t);
    frames.push(null);  // breaks the line
  }
  lastSeq = m.seq;
  frames.push({ seq: m.seq, t: m.t, acc: m.acc, gravity: m.gravity, user: m.user, pitch: m.pitch, roll: m.roll,
    rate: m.rotationRate, quaternion: m.quaternion, yaw: m.yaw, recovering: m.gyroRecovering === true });
  live.frames += 1;
  const horizon = m.t - WINDOW_SECONDS - 1;
  while (frames.length && (frames[0] === null || frames[0].t < horizon)) frames.shift();
  while (spans.length && spans[0].end !== null && spans[0].end < horizon) spans.shift();
}

// ---- Drawing, once per animation frame ----
const plot = document.getElementById("plot");
const level = document.getElementById("level");
let drawn = 0, redraws = 0, drawnFrames = 0, lastCount = performance.now();

function draw() {
  requestAnimationFrame(draw);
  const now = performance.now();
  if (now - lastCount >= 1000) {
    live.framesPerSecond = Math.round((live.frames - drawnFrames) * 1000 / (now - lastCount));
    live.redrawsPerSecond = Math.round(redraws * 1000 / (now - lastCount));
    drawnFrames = live.frames; redraws = 0; lastCount = now;
    document.getElementById("fps").textContent = `${live.framesPerSecond} samples/s, ${live.redrawsPerSecond} redraws/s`;
  }
  if (paused || live.frames === drawn) return;
  drawn = live.frames;
  redraws += 1;
  drawPlot();
  drawLevel();
  window.acceldGyroscope.draw(frames, WINDOW_SECONDS, live);
}

function drawPlot() {
  const ratio = window.devicePixelRatio || 1;
  const width = plot.clientWidth * ratio, height = plot.clientHeight * ratio;
  if (plot.width !== width || plot.height !== height) { plot.width = width; plot.height = height; }
  const c = plot.getContext("2d");
  c.clearRect(0, 0, width, height);
  const newest = [...frames].reverse().find((f) => f);
  if (!newest) return;
  const right = newest.t, left = right - WINDOW_SECONDS;
  let scale = view === "user" ? 0.5 : 1.2;
  for (const f of frames) if (f && f.t >= left) for (const v of f[view]) scale = Math.max(scale, Math.abs(v) * 1.1);
  const x = (t) => (t - left) / WINDOW_SECONDS * width;
  const y = (v) => height / 2 - v / scale * (height / 2 - 4);
  // Spans first, behind the traces; their labels last, over them.
  const shown = spans.filter((s) => (s.end === null ? right : s.end) >= left);
  for (const s of shown) {
    const end = s.end === null ? right : s.end;
    c.fillStyle = SPAN_COLORS[s.kind];
    c.fillRect(x(s.start), 0, Math.max(x(end) - x(s.start), 2 * ratio), height);
  }
  c.strokeStyle = "#ccc"; c.lineWidth = ratio;
  c.beginPath(); c.moveTo(0, y(0)); c.lineTo(width, y(0)); c.stroke();
  c.fillStyle = "#999";
  c.font = `${11 * ratio}px system-ui, sans-serif`;
  c.textBaseline = "alphabetic";  // the labels below leave it at "top"
  c.fillText(`±${scale.toFixed(1)} g`, 4, height - 6 * ratio);
  ["x", "y", "z"].forEach((axis, i) => {
    c.strokeStyle = COLORS[axis]; c.lineWidth = 1.5 * ratio;
    c.beginPath();
    let pen = false;
    for (const f of frames) {
      if (!f) { pen = false; continue; }
      if (f.t < left) continue;
      if (pen) c.lineTo(x(f.t), y(f[view][i])); else { c.moveTo(x(f.t), y(f[view][i])); pen = true; }
    }
    c.stroke();
  });
  live.plotLabels = window.acceldLabels.layout(c, labelsInOrder(shown, x, ratio), width, ratio);
  c.fillStyle = "#444";
  for (const label of live.plotLabels) c.fillText(label.text, label.x, label.y);
}

// The most important first (a fall before a gap), the newest first among
// equals: labels.js gives the lanes in that order.
const IMPORTANCE = { freefall: 0, shake: 1, tap: 2, movement: 3, gap: 4 };
function labelsInOrder(shown, x, ratio) {
  return [...shown].sort((a, b) => IMPORTANCE[a.kind] - IMPORTANCE[b.kind] || b.start - a.start)
    .map((s) => ({ text: s.label, x: x(s.start) + 2 * ratio }));
}

function drawLevel() {
  const newest = [...frames].reverse().find((f) => f);
  if (!newest) return;
  const c = level.getContext("2d"), size = level.width, middle = size / 2, radius = size / 2 - 6;
  c.clearRect(0, 0, size, size);
  c.strokeStyle = "#999"; c.lineWidth = 2;
  c.beginPath(); c.arc(middle, middle, radius, 0, 2 * Math.PI); c.stroke();
  c.beginPath(); c.arc(middle, middle, radius / 4, 0, 2 * Math.PI); c.stroke();
  // The bubble rises: it moves against the gravity estimate's tilt.
  const [gx, gy] = newest.gravity;
  let bx = -gx, by = gy;
  const length = Math.hypot(bx, by);
  if (length > 1) { bx /= length; by /= length; }
  c.fillStyle = Math.hypot(gx, gy) < 0.03 ? "#2a2" : "#36c";
  c.beginPath(); c.arc(middle + bx * (radius - 12), middle + by * (radius - 12), 12, 0, 2 * Math.PI); c.fill();
  document.getElementById("tilt").textContent = `pitch ${newest.pitch.toFixed(1)}°, roll ${newest.roll.toFixed(1)}°`;
}

// ---- The panels ----
// Standing, the board is turned as it stands (landscapeLeft: its right edge
// up); face up or down it is drawn lying on a table, screen or back up.
const ROTATION = { portrait: 0, portraitUpsideDown: 180, landscapeLeft: -90, landscapeRight: 90 };
function showOrientation(name) {
  live.orientation = name;
  const label = document.getElementById("orientation");
  label.textContent = words.orientation(name);
  label.dataset.orientation = name;
  const flat = name === "faceUp" || name === "faceDown";
  document.getElementById("board-standing").toggleAttribute("hidden", flat);
  document.getElementById("board-flat").toggleAttribute("hidden", !flat);
  document.getElementById("board-flat").dataset.face = name === "faceDown" ? "down" : "up";
  document.getElementById("board-standing").style.transform = `rotate(${ROTATION[name] || 0}deg)`;
}

function showDevice(d) {
  live.device = d;
  // The hello's device names the gyroscope's range only on parts that have one.
  live.gyroscope = typeof d.gyroscope === "number";
  window.acceldGyroscope.show(live.gyroscope);
  document.getElementById("chip").textContent = `${d.chip} · ${d.location}`;
  fill("device", words.deviceRows(d, live.gyroscope));
}

function showCounters(s) {
  if (s.device) showDevice(s.device);
  fill("counters", words.counterRows(s, live.gaps, live.lost));
}

// rows: [{label, hint, value, key?}]; the hint is the label's tooltip.
function fill(id, rows) {
  const list = document.getElementById(id);
  list.replaceChildren(...rows.flatMap(({ label, hint, value, key }) => {
    const dt = document.createElement("dt"), dd = document.createElement("dd");
    dt.textContent = label; dt.title = hint;
    dd.textContent = value;
    dd.dataset.key = key || label;
    return [dt, dd];
  }));
}

// Each line starts with the local time of what it tells: from acceld's t
// (words.js learns the offset from the frames), or for the gateway's own
// notices, which carry no t, this page's clock when they arrived. Lines
// that come before the first frame get their time from it.
const unstamped = [];
function log(kind, text, t) {
  live.events.push({ kind, text, t });
  const item = document.createElement("li"), time = document.createElement("time");
  item.dataset.class = kind;
  item.append(time, " " + text);
  if (t === undefined) time.textContent = words.now(); else stamp(time, t);
  const list = document.getElementById("log");
  list.prepend(item);
  while (list.children.length > 200) list.lastChild.remove();
}

function stamp(time, t) {
  const shown = words.wallTime(t);
  if (shown === null) { time.textContent = "…"; unstamped.push([time, t]); } else time.textContent = shown;
}

for (const input of document.querySelectorAll("input[name=view]")) input.addEventListener("change", (e) => { view = e.target.value; drawn = -1; });
document.getElementById("pause").addEventListener("change", (e) => { paused = e.target.checked; });
connect();
requestAnimationFrame(draw);
