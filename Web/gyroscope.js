// SPDX-License-Identifier: Apache-2.0
// The live page's gyroscope panels, shown only when acceld's hello says the
// part has one (device.gyroscope): the rotation rate against time, and the
// attitude drawn as a small box from the frame's quaternion. app.js owns
// the frames (gaps are nulls) and calls show() and draw().
"use strict";

window.acceldGyroscope = (function () {
  const DEGREES = 180 / Math.PI;
  const COLORS = { x: "#d33", y: "#2a2", z: "#36c" };
  const ratePlot = document.getElementById("rate-plot");
  const attitude = document.getElementById("attitude");
  let shown = false;

  // Hidden by default: a part without a gyroscope never shows them.
  function show(hasGyroscope) {
    shown = hasGyroscope;
    for (const id of ["rotation", "attitude-panel"]) document.getElementById(id).hidden = !hasGyroscope;
  }

  function draw(frames, windowSeconds, live) {
    if (!shown) return;
    const newest = [...frames].reverse().find((f) => f && f.rate);
    if (!newest) return;
    live.rotationRate = newest.rate.map((v) => v * DEGREES);
    live.rotationRedraws = (live.rotationRedraws || 0) + 1;
    drawRates(frames, newest.t, windowSeconds);
    if (newest.quaternion) drawAttitude(newest);
  }

  // Three traces in deg/s over the same window as the main plot; the
  // scale grows with the largest rate shown, never below ±30 °/s so that
  // the noise of a part at rest (a few hundredths of a °/s) stays flat.
  function drawRates(frames, right, windowSeconds) {
    const ratio = window.devicePixelRatio || 1;
    const width = ratePlot.clientWidth * ratio, height = ratePlot.clientHeight * ratio;
    if (ratePlot.width !== width || ratePlot.height !== height) { ratePlot.width = width; ratePlot.height = height; }
    const c = ratePlot.getContext("2d");
    c.clearRect(0, 0, width, height);
    const left = right - windowSeconds;
    let scale = 30;
    for (const f of frames) if (f && f.rate && f.t >= left) for (const v of f.rate) scale = Math.max(scale, Math.abs(v) * DEGREES * 1.1);
    const x = (t) => (t - left) / windowSeconds * width;
    const y = (v) => height / 2 - v * DEGREES / scale * (height / 2 - 4);
    c.strokeStyle = "#ccc"; c.lineWidth = ratio;
    c.beginPath(); c.moveTo(0, y(0)); c.lineTo(width, y(0)); c.stroke();
    c.font = `${11 * ratio}px system-ui, sans-serif`;
    c.fillStyle = "#999";
    c.fillText(`±${scale.toFixed(0)} °/s`, 4, height - 6 * ratio);
    ["x", "y", "z"].forEach((axis, i) => {
      c.strokeStyle = COLORS[axis]; c.lineWidth = 1.5 * ratio;
      c.beginPath();
      let pen = false;
      for (const f of frames) {
        if (!f || !f.rate) { pen = false; continue; }
        if (f.t < left) continue;
        if (pen) c.lineTo(x(f.t), y(f.rate[i])); else { c.moveTo(x(f.t), y(f.rate[i])); pen = true; }
      }
      c.stroke();
    });
  }

  // v (board axes) into the Z-up reference: q·v·q⁻¹, q = [w, x, y, z].
  function rotate([w, x, y, z], [vx, vy, vz]) {
    const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
    return [vx + w * tx + (y * tz - z * ty), vy + w * ty + (z * tx - x * tz), vz + w * tz + (x * ty - y * tx)];
  }

  // The board as a flat box (x narrow, y long, z thin, its screen on +z),
  // seen from 30° west of south and 30° above the horizon, orthographic
  // (seen square from the south, a board on its edge is a line): a face
  // is drawn when its outward normal points at the viewer, which is
  // enough for a convex box. Yaw turns it about the vertical.
  const ELEVATION = 30 / DEGREES, AZIMUTH = 30 / DEGREES;
  const toViewer = [-Math.sin(AZIMUTH) * Math.cos(ELEVATION), -Math.cos(AZIMUTH) * Math.cos(ELEVATION), Math.sin(ELEVATION)];
  const screenRight = [Math.cos(AZIMUTH), -Math.sin(AZIMUTH), 0];
  const screenUp = [Math.sin(AZIMUTH) * Math.sin(ELEVATION), Math.cos(AZIMUTH) * Math.sin(ELEVATION), Math.cos(ELEVATION)];
  const HALF = [0.45, 0.8, 0.08];
  const FACES = [
    { normal: [0, 0, 1], fill: "#9cf" }, { normal: [0, 0, -1], fill: "#556" },
    { normal: [1, 0, 0], fill: "#334" }, { normal: [-1, 0, 0], fill: "#334" },
    { normal: [0, 1, 0], fill: "#445" }, { normal: [0, -1, 0], fill: "#445" },
  ];
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

  function drawAttitude(frame) {
    const q = frame.quaternion;
    const c = attitude.getContext("2d"), size = attitude.width, middle = size / 2, unit = size * 0.32;
    c.clearRect(0, 0, size, size);
    const project = (p) => [middle + dot(p, screenRight) * unit, middle - dot(p, screenUp) * unit];
    // The horizon's ellipse and where the board's +y pointed at the start (yaw 0).
    c.strokeStyle = "#bbb"; c.lineWidth = 1;
    c.beginPath(); c.ellipse(middle, middle, unit * 1.3, unit * 1.3 * Math.sin(ELEVATION), 0, 0, 2 * Math.PI); c.stroke();
    const [nx, ny] = project([0, 1.3, 0]);
    c.fillStyle = "#999"; c.font = "11px system-ui, sans-serif"; c.textAlign = "center";
    c.beginPath(); c.arc(nx, ny, 2, 0, 2 * Math.PI); c.fill();
    c.fillText("yaw 0", nx, ny - 5);
    for (const face of FACES) {
      const n = rotate(q, face.normal);
      if (dot(n, toViewer) <= 0) continue;
      // The face's four corners: its normal's axis fixed, the other two at ±.
      const axis = face.normal.findIndex((v) => v !== 0), [a, b] = [0, 1, 2].filter((i) => i !== axis);
      const corners = [[-1, -1], [1, -1], [1, 1], [-1, 1]].map(([s, t]) => {
        const p = [0, 0, 0];
        p[axis] = face.normal[axis] * HALF[axis]; p[a] = s * HALF[a]; p[b] = t * HALF[b];
        return project(rotate(q, p));
      });
      c.fillStyle = face.fill; c.strokeStyle = "#223";
      c.beginPath(); corners.forEach(([px, py], i) => (i ? c.lineTo(px, py) : c.moveTo(px, py))); c.closePath();
      c.fill(); c.stroke();
    }
    // The top edge (+y) marked, so that a half turn is not mistaken for none.
    if (dot(rotate(q, [0, 0, 1]), toViewer) > 0) {
      const [tx, ty] = project(rotate(q, [0, HALF[1] * 0.85, HALF[2]]));
      c.fillStyle = "#d33"; c.beginPath(); c.arc(tx, ty, 3, 0, 2 * Math.PI); c.fill();
    }
    const yaw = frame.yaw === undefined ? "–" : `${frame.yaw.toFixed(1)}°`;
    document.getElementById("heading").textContent = `yaw ${yaw}` + (frame.recovering ? " (recovering)" : "");
  }

  return { show, draw };
})();
