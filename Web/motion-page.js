// SPDX-License-Identifier: Apache-2.0
// The phone-style listener of motion.html (a file of its own: the
// gateway's Content-Security-Policy allows no inline script).
"use strict";
// A browser without sensors may fire one event of nulls itself: skipped.
window.addEventListener("devicemotion", (e) => {
  const a = e.accelerationIncludingGravity;
  if (!a || a.x === null) return;
  window.lastMotion = { x: a.x, y: a.y, z: a.z, interval: e.interval };
  document.getElementById("aig").textContent = `${a.x.toFixed(2)}, ${a.y.toFixed(2)}, ${a.z.toFixed(2)}`;
});
window.addEventListener("deviceorientation", (e) => {
  if (e.beta === null) return;
  window.lastOrientation = { alpha: e.alpha, beta: e.beta, gamma: e.gamma };
  document.getElementById("beta").textContent = e.beta.toFixed(1);
  document.getElementById("gamma").textContent = e.gamma.toFixed(1);
});
