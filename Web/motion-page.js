// SPDX-License-Identifier: Apache-2.0
// The phone-style listener of motion.html (a file of its own: the
// gateway's Content-Security-Policy allows no inline script).
"use strict";
// A browser without sensors may fire one event of nulls itself: skipped.
window.addEventListener("devicemotion", (e) => {
  const a = e.accelerationIncludingGravity;
  if (!a || a.x === null) return;
  const r = e.rotationRate;
  window.lastMotion = { x: a.x, y: a.y, z: a.z, interval: e.interval, rotationRate: r && r.alpha !== null ? { alpha: r.alpha, beta: r.beta, gamma: r.gamma } : null };
  document.getElementById("aig").textContent = `${a.x.toFixed(2)}, ${a.y.toFixed(2)}, ${a.z.toFixed(2)}`;
  document.getElementById("rate").textContent = window.lastMotion.rotationRate ? `${r.alpha.toFixed(1)}, ${r.beta.toFixed(1)}, ${r.gamma.toFixed(1)}` : "none (no gyroscope)";
});
window.addEventListener("deviceorientation", (e) => {
  if (e.beta === null) return;
  window.lastOrientation = { alpha: e.alpha, beta: e.beta, gamma: e.gamma };
  document.getElementById("alpha").textContent = e.alpha === null ? "–" : e.alpha.toFixed(1);
  document.getElementById("beta").textContent = e.beta.toFixed(1);
  document.getElementById("gamma").textContent = e.gamma.toFixed(1);
});
