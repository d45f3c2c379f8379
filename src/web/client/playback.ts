/**
 * @module
 * A human run's terminal session played back in a terminal emulator (xterm.js, bundled; loaded only on a
 * page with a recording): play and pause, speed, a position slider, and "to the end". The bytes are written
 * to the emulator as the terminal received them, so colours, cursor moves and full-screen programs replay
 * as the person saw them.
 */
import { Terminal } from "@xterm/xterm";
import type { RecordingView } from "../api-types.js";
import { h } from "./dom.js";
import { duration } from "./format.js";

export function playback(recording: RecordingView): HTMLElement {
  const data = Uint8Array.from(atob(recording.output), (c) => c.charCodeAt(0));
  // Chunk boundaries in bytes and their times (seconds from the start); no timing: everything at 0.
  const chunks = recording.timing.length > 0 ? recording.timing : [[0, data.length] as [number, number]];
  const starts: number[] = [];
  const times: number[] = [];
  let offset = 0;
  let clock = 0;
  for (const [delay, size] of chunks) {
    clock += delay;
    starts.push(offset);
    times.push(clock);
    offset += size;
  }
  starts.push(Math.min(offset, data.length));
  const total = clock;
  const terminal = new Terminal({ cols: 100, rows: 30, disableStdin: true, convertEol: false, scrollback: 5000, fontSize: 13 });
  const screen = h("div", { class: "terminal", id: "terminal" });
  const slider = h("input", { type: "range", min: 0, max: Math.max(1, Math.round(total * 10)), value: 0, id: "playback-position", "aria-label": "position" });
  const clockText = h("span", { class: "clock", id: "playback-clock" }, `0s / ${duration(total)}`);
  const speed = h("select", { "aria-label": "speed" }, ...[1, 2, 4, 8, 32].map((s) => h("option", { value: s, selected: s === 4 }, `${s}×`)));
  const play = h("button", { id: "playback-play" }, "play");
  let shown = 0; // chunks written
  let position = 0; // seconds
  let timer: number | undefined;
  let last = 0;

  const writeUpTo = (seconds: number) => {
    if (seconds < position) {
      terminal.reset();
      shown = 0;
    }
    position = seconds;
    let upto = shown;
    while (upto < times.length && times[upto]! <= seconds) upto++;
    if (upto > shown) terminal.write(data.subarray(starts[shown]!, starts[upto]!));
    shown = upto;
    slider.value = String(Math.round(seconds * 10));
    clockText.textContent = `${duration(seconds)} / ${duration(total)}`;
  };
  const stop = () => {
    if (timer !== undefined) window.clearInterval(timer);
    timer = undefined;
    play.textContent = "play";
  };
  const start = () => {
    if (position >= total) writeUpTo(0);
    last = performance.now();
    play.textContent = "pause";
    timer = window.setInterval(() => {
      const now = performance.now();
      const next = Math.min(total, position + ((now - last) / 1000) * Number(speed.value));
      last = now;
      writeUpTo(next);
      if (next >= total) stop();
    }, 50);
  };
  play.addEventListener("click", () => (timer === undefined ? start() : stop()));
  slider.addEventListener("input", () => writeUpTo(Number(slider.value) / 10));
  const element = h(
    "div",
    { class: "playback" },
    recording.tailOnly ? h("p", { class: "note" }, "The recording's files are gone: this is the end of the session as the run's note kept it.") : null,
    h(
      "div",
      { class: "controls" },
      play,
      h(
        "button",
        {
          id: "playback-end",
          onclick: () => {
            stop();
            writeUpTo(total);
          },
        },
        "to the end",
      ),
      speed,
      slider,
      clockText,
    ),
    screen,
  );
  // xterm measures its container: open it once the element is in the page.
  requestAnimationFrame(() => {
    terminal.open(screen);
    if (total === 0) writeUpTo(0);
  });
  return element;
}
