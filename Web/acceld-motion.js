// SPDX-License-Identifier: Apache-2.0
// acceld-motion.js: the board's accelerometer as the browser's own
// DeviceMotion and DeviceOrientation events. Include it in a page written
// for a phone and that page runs unchanged on the board's own browser:
//
//   <script src="/acceld-motion.js"></script>
//   <script>
//     window.addEventListener("devicemotion", (e) => console.log(e.accelerationIncludingGravity.z));
//   </script>
//
// It reads acceld-gateway's /ws/motion stream (same host by default; set
// window.ACCELD_MOTION_URL before including it to use another) and
// reconnects by itself. Axes, signs and units follow the W3C specification:
// m/s², face up at rest accelerationIncludingGravity.z = +9.81;
// rotationRate (deg/s) and alpha (the heading from where the board
// started, absolute false) come from a part with a gyroscope, and are null
// without one. The mapping is in docs/GATEWAY.md.
(function () {
  "use strict";
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const url = window.ACCELD_MOTION_URL || `${scheme}//${location.host}/ws/motion`;
  let backoff = 500;

  // DeviceMotionEvent's constructor takes these as plain dictionaries;
  // where a browser lacks the constructor, a plain Event carries them.
  function motionEvent(m) {
    const init = { acceleration: m.acceleration, accelerationIncludingGravity: m.accelerationIncludingGravity, rotationRate: m.rotationRate, interval: m.interval };
    try { return new DeviceMotionEvent("devicemotion", init); } catch (_) { return Object.assign(new Event("devicemotion"), init); }
  }
  function orientationEvent(o) {
    try { return new DeviceOrientationEvent("deviceorientation", o); } catch (_) { return Object.assign(new Event("deviceorientation"), o); }
  }

  function connect() {
    const socket = new WebSocket(url);
    socket.onopen = () => { backoff = 500; };
    socket.onmessage = (message) => {
      for (const line of message.data.split("\n")) {
        if (!line) continue;
        const m = JSON.parse(line);
        window.dispatchEvent(motionEvent(m.motion));
        if (m.orientation) window.dispatchEvent(orientationEvent(m.orientation));
      }
    };
    socket.onclose = () => { setTimeout(connect, backoff); backoff = Math.min(backoff * 2, 5000); };
  }
  connect();
})();
