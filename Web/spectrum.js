// SPDX-License-Identifier: Apache-2.0
// The live page's vibration panel, shown once acceld sends a `vibration`
// window (the gateway watches them with `[gateway] vibration`): the
// window's spectrum against frequency, on a logarithmic amplitude scale so
// that a bearing's small lines show beside the shaft's large one, and a
// waterfall (spectrogram) of the last windows, newest on top, colour for
// amplitude on the same scale. app.js hands each window to add().
"use strict";

window.acceldSpectrum = (function () {
  const FLOOR = 1e-5;           // g: the lowest amplitude drawn (-100 dB re 1 g)
  const ROW = 3;                // the waterfall's row per window, in CSS pixels
  const spectrumCanvas = document.getElementById("spectrum");
  const waterfall = document.getElementById("waterfall");
  let top = 0.1;                // g: the scale's top, grown to the largest line seen

  function reset(live) {
    document.getElementById("vibration").hidden = true;
    live.spectra = 0;
    top = 0.1;
    const c = waterfall.getContext("2d");
    c.clearRect(0, 0, waterfall.width, waterfall.height);
  }

  // Sized to the canvas's CSS box at the screen's pixel ratio; the
  // waterfall keeps its rows across a resize only when the size holds.
  function fit(canvas) {
    const ratio = window.devicePixelRatio || 1;
    const width = Math.round(canvas.clientWidth * ratio), height = Math.round(canvas.clientHeight * ratio);
    if (canvas.width !== width || canvas.height !== height) { canvas.width = width; canvas.height = height; }
    return ratio;
  }

  // 0 at the floor, 1 at the top, logarithmic.
  function level(amplitude) {
    const span = Math.log10(top / FLOOR);
    return Math.min(1, Math.max(0, Math.log10(Math.max(amplitude, FLOOR) / FLOOR) / span));
  }

  // Dark blue (quiet) through green and yellow to red (the strongest).
  function colour(value) {
    return `hsl(${Math.round(240 * (1 - value))}, 90%, ${Math.round(15 + 40 * Math.min(1, value * 1.6))}%)`;
  }

  function add(m, live) {
    if (!m.spectrum || !m.spectrum.amplitudes.length) return;
    document.getElementById("vibration").hidden = false;
    const { step, amplitudes } = m.spectrum;
    top = Math.max(top, ...amplitudes);
    let strongest = 0;
    amplitudes.forEach((a, i) => { if (a > amplitudes[strongest]) strongest = i; });
    drawSpectrum(step, amplitudes, strongest, m);
    drawRow(amplitudes);
    live.spectra = (live.spectra || 0) + 1;
    // What a test checks against acceld's own figures: the strongest bin's
    // middle, and the bins' width.
    live.spectrum = { step, bins: amplitudes.length, strongestHz: (strongest + 0.5) * step, state: m.state };
    const dominant = m.peaks.length ? `${m.peaks[0][0].toFixed(2)} Hz at ${(m.peaks[0][1] * 1000).toFixed(1)} mg` : "no line";
    document.getElementById("vibration-figures").textContent =
      `velocity ${m.vector.velocity.toFixed(2)} mm/s RMS · ${(m.vector.rms * 1000).toFixed(1)} mg RMS · strongest ${dominant}` +
      ` · machine ${m.state}` + (m.zone ? ` · ISO zone ${m.zone}` : "") + (m.clipped ? " · clipped: the figures understate" : "");
  }

  function drawSpectrum(step, amplitudes, strongest, m) {
    const ratio = fit(spectrumCanvas);
    const width = spectrumCanvas.width, height = spectrumCanvas.height;
    const c = spectrumCanvas.getContext("2d");
    c.clearRect(0, 0, width, height);
    const bottom = height - 16 * ratio;
    const x = (i) => (i + 0.5) / amplitudes.length * width;
    const y = (a) => bottom - level(a) * (bottom - 4 * ratio);
    // Decades of amplitude and every 100 Hz (or 1 kHz past 2 kHz), faint.
    c.strokeStyle = "#eee"; c.lineWidth = ratio;
    c.fillStyle = "#999"; c.font = `${11 * ratio}px system-ui, sans-serif`;
    for (let a = FLOOR; a <= top; a *= 10) { c.beginPath(); c.moveTo(0, y(a)); c.lineTo(width, y(a)); c.stroke(); }
    const span = step * amplitudes.length, tick = span > 2000 ? 1000 : span > 400 ? 100 : 10;
    for (let f = tick; f < span; f += tick) {
      const px = f / span * width;
      c.beginPath(); c.moveTo(px, 0); c.lineTo(px, bottom); c.stroke();
      if ((f / tick) % (span > 400 && tick === 100 ? 2 : 1) === 0) c.fillText(`${f} Hz`, px + 2 * ratio, height - 3 * ratio);
    }
    c.fillText(`${(top * 1000).toFixed(0)} mg`, 4 * ratio, 12 * ratio);
    c.strokeStyle = "#36c"; c.lineWidth = 1.5 * ratio;
    c.beginPath();
    amplitudes.forEach((a, i) => (i ? c.lineTo(x(i), y(a)) : c.moveTo(x(i), y(a))));
    c.stroke();
    if (m.peaks.length) {
      c.fillStyle = "#d33";
      c.beginPath(); c.arc(x(strongest), y(amplitudes[strongest]), 3 * ratio, 0, 2 * Math.PI); c.fill();
      c.fillText(`${m.peaks[0][0].toFixed(1)} Hz`, Math.min(x(strongest) + 5 * ratio, width - 60 * ratio), y(amplitudes[strongest]) + 4 * ratio);
    }
  }

  // The waterfall scrolls down one row and the newest window is drawn on top.
  function drawRow(amplitudes) {
    const ratio = fit(waterfall);
    const width = waterfall.width, row = Math.max(1, Math.round(ROW * ratio));
    const c = waterfall.getContext("2d");
    c.drawImage(waterfall, 0, row);
    const each = width / amplitudes.length;
    amplitudes.forEach((a, i) => {
      c.fillStyle = colour(level(a));
      c.fillRect(Math.floor(i * each), 0, Math.ceil(each), row);
    });
  }

  return { add, reset };
})();
