// SPDX-License-Identifier: Apache-2.0
// What a person reads on the live page, made from what acceld sends: its
// counters and orientations in words (the counters' hints from
// docs/PROTOCOL.md's status), and its monotonic times as local wall-clock
// times. app.js draws; this file only names and converts.
"use strict";

window.acceldWords = (function () {
  // The status message's counters: [label, hint]. acceld counts them from
  // its start, so every hint is about its whole run, not this page's.
  const COUNTERS = {
    published: ["samples published", "Samples acceld read from the chip and sent to its clients"],
    lost: ["samples lost", "Samples the chip made that acceld never read: gaps in the sequence"],
    overruns: ["overruns", "Reads that found the chip had overwritten a sample before acceld read it"],
    emptyReads: ["empty reads", "Reads that found no new sample yet; the next read finds it (harmless)"],
    wakes: ["reads of the chip", "Times the sampler woke to read the chip: about one a sample, or one per FIFO batch"],
    impossibleReady: ["data-ready too soon", "Reads whose data-ready bit came sooner than the chip's clock can make a sample: never published"],
    reacquisitions: ["clock re-locks", "Times 4 of the last 32 reads found samples overwritten, so acceld locked onto the chip's clock again"],
    guessedNumbers: ["numbers guessed", "Reads after a gap that no read around them could place (acceld's thread held up inside a read, twice running): numbered within the gap by the middle candidate"],
    busErrors: ["bus errors", "I2C transfers that failed"],
    recoveries: ["recoveries", "Times the chip answered again after being lost"],
    reconfigurations: ["reconfigurations", "Times the chip was found reset and configured again"],
    sleeps: ["sleeps", "Times acceld let the chip watch for motion and stopped reading (wake-on-motion)"],
    wakeUps: ["wake-ups", "Times acceld read at the full rate again after a sleep: the chip saw motion, or a client watched frames"],
  };

  // A counter a newer acceld adds still reads as words: fooBar → "foo bar".
  function counter(key) {
    const known = COUNTERS[key], rank = Object.keys(COUNTERS).indexOf(key);
    if (known) return { key, rank, label: known[0], hint: `${known[1]}, since acceld started (status: ${key})` };
    return { key, rank: 99, label: key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase(),
      hint: `acceld's counter ${key}, since it started (docs/PROTOCOL.md, status)` };
  }

  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

  // The counters panel: acceld's counters (from its start), then the
  // page's own count of gaps (since it opened). Rows: {label, hint, value}.
  function counterRows(status, gaps, lost) {
    const rows = Object.keys(status.counters).map((key) => ({ ...counter(key), value: status.counters[key] }));
    rows.sort((a, b) => a.rank - b.rank);
    return [...rows,
      { label: "clients", hint: "Programs connected to acceld's socket, this gateway included", value: status.clients },
      { label: "acceld running for", hint: "Time since acceld started: the counters above count from then", value: duration(status.uptime) },
      { label: "gaps on this page", hint: "Gaps in the sample sequence this page saw since it opened, and the samples in them",
        value: gaps ? `${plural(lost, "sample")} in ${plural(gaps, "gap")}` : "none" },
    ];
  }

  function deviceRows(d, gyroscope) {
    return [
      { label: "part", hint: "The accelerometer acceld found", value: d.chip },
      { label: "range", hint: "Full scale: the largest acceleration the chip measures", value: `±${d.range} g` },
      ...(gyroscope ? [{ label: "gyroscope", hint: "The gyroscope's full scale", value: `±${d.gyroscope} °/s` }] : []),
      { label: "rate", hint: "Samples the chip makes a second", value: `${d.rate} Hz` },
      { label: "mode", hint: "The chip's power mode, and the bits in each sample", value: `${d.mode} (${d.resolution}-bit)` },
      { label: "state", hint: "acceld's view of the chip: ok, lost, stalled, wrong-part or data-ready-stuck (docs/PROTOCOL.md)", value: d.state },
      ...(d.message ? [{ label: "last message", hint: "acceld's last word about the chip", value: d.message }] : []),
    ];
  }

  const ORIENTATIONS = {
    portrait: "portrait", portraitUpsideDown: "portrait, upside down",
    landscapeLeft: "landscape, right edge up", landscapeRight: "landscape, left edge up",
    faceUp: "face up", faceDown: "face down", unknown: "not settled yet",
  };
  const orientation = (name) => ORIENTATIONS[name] || name;

  // acceld's `t` is its monotonic clock (seconds since the board booted),
  // which means nothing to a person. The offset to this page's wall clock
  // is learnt from the frames, not taken at each event's arrival: a frame
  // arrives after it was made (the gateway batches up to 50 ms, then the
  // network) and never before, so the smallest (arrival − t) is the best
  // estimate. It is taken afresh over each 10 s, so that it follows the two
  // clocks drifting apart, and forgotten at each hello (the board may have
  // rebooted). An event's time is then when the board made it, in this
  // page's local time, late by at most the quickest frame's delay.
  let offset = null, best = Infinity, windowStart = 0;
  function learn(t) {
    const now = Date.now() / 1000, lag = now - t;
    best = Math.min(best, lag);
    if (offset === null || lag < offset) offset = lag;
    if (now - windowStart >= 10) { offset = best; best = Infinity; windowStart = now; }
  }
  function forget() { offset = null; best = Infinity; windowStart = 0; }

  const two = (n) => String(n).padStart(2, "0");
  // "14:03:07.512": local time with milliseconds.
  function clockTime(epochMilliseconds) {
    const d = new Date(epochMilliseconds);
    return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, "0")}`;
  }
  // acceld's t as a local time; null until a frame has set the offset.
  const wallTime = (t) => offset === null ? null : clockTime((t + offset) * 1000);
  const now = () => clockTime(Date.now());

  // "23 s", "4 min 05 s", "3 h 12 min".
  function duration(seconds) {
    const s = Math.floor(seconds);
    if (s < 60) return `${s} s`;
    if (s < 3600) return `${Math.floor(s / 60)} min ${two(s % 60)} s`;
    return `${Math.floor(s / 3600)} h ${two(Math.floor(s / 60) % 60)} min`;
  }

  return { counter, counterRows, deviceRows, orientation, learn, forget, wallTime, now, clockTime, duration };
})();
