// SPDX-License-Identifier: Apache-2.0
// Where the plot's span labels go ("shake 1.43 s", "fall 1.25 m", "3 lost").
// Labels come in order of importance and each takes the top lane where its
// box, with some spacing, overlaps no label placed before it, so that a
// burst of gaps never pushes out a fall. A label that fits in no lane is
// not drawn (its band is, and the event log lists every one): labels never
// overlap, however many there are. No state: a test calls it as the plot does.
"use strict";

window.acceldLabels = (function () {
  // In CSS pixels; the plot multiplies them by its devicePixelRatio.
  const FONT = 11, LINE = 14, TOP = 3, SPACING = 4, LANES = 3;

  // labels: [{text, x}], x where the label would start (canvas pixels).
  // Measures them in the labels' font, which it leaves set on `c` with the
  // "top" baseline for drawing them. Returns those placed as boxes {text,
  // x, y, width, height, lane}: y the top, x moved inside the plot.
  function layout(c, labels, plotWidth, ratio = 1) {
    c.font = `${FONT * ratio}px system-ui, sans-serif`;
    c.textBaseline = "top";
    const placed = [], spacing = SPACING * ratio;
    for (const label of labels) {
      const m = c.measureText(label.text);
      const width = m.width, height = m.fontBoundingBoxAscent + m.fontBoundingBoxDescent;
      const x = Math.max(0, Math.min(label.x, plotWidth - width));
      const clear = (lane) => placed.every((p) => p.lane !== lane || x + width + spacing <= p.x || p.x + p.width + spacing <= x);
      let lane = 0;
      while (lane < LANES && !clear(lane)) lane += 1;
      if (lane < LANES) placed.push({ text: label.text, x, y: (TOP + lane * LINE) * ratio, width, height, lane });
    }
    return placed;
  }

  return { layout };
})();
