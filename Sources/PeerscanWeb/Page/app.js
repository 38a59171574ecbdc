// The page's entry: the token from the fragment, the live snapshot, the status line and the screen of the path.

import { adoptTokenFromFragment } from "./api.js";
import { BluetoothScreen } from "./bluetooth.js";
import { DeviceScreen } from "./device.js";
import { DevicesScreen } from "./devices.js";
import { onNavigate, route } from "./router.js";
import { LiveSnapshot } from "./stream.js";
import { fill, h } from "./text.js";
import { WiFiScreen } from "./wifi.js";

adoptTokenFromFragment();

const main = document.getElementById("main");
const status = document.getElementById("status");
const alert = document.getElementById("alert");
const live = new LiveSnapshot();
let screen = null;
let shownRoute = null;

const titles = { devices: "Devices", wifi: "Wi-Fi", bluetooth: "Bluetooth nearby", device: "Device", missing: "Not found" };

function show(next) {
  // The query changes (the devices' filter) without a new screen; a new path gets one.
  if (shownRoute && next.name === shownRoute.name && next.id === shownRoute.id && screen) return;
  screen?.dispose();
  shownRoute = next;
  document.title = `${titles[next.name]} · peerscan`;
  for (const link of document.querySelectorAll("nav a")) {
    const current = link.dataset.screen === next.name || (next.name === "device" && link.dataset.screen === "devices");
    if (current) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  if (next.name === "devices") screen = new DevicesScreen(main, live);
  else if (next.name === "wifi") screen = new WiFiScreen(main, live);
  else if (next.name === "bluetooth") screen = new BluetoothScreen(main, live);
  else if (next.name === "device") screen = new DeviceScreen(main, live, next.id);
  else {
    screen = null;
    fill(main, h("h1", {}, "Not found"), h("p", {}, h("a", { href: "/" }, "All devices")));
  }
  if (live.snapshot) screen?.update(live.snapshot, null);
  main.focus({ preventScroll: true });
}

live.addEventListener("change", (event) => screen?.update(event.detail.snapshot, event.detail.changes));
live.addEventListener("status", (event) => {
  status.dataset.state = event.detail.state;
  status.textContent = event.detail.message;
  // Not being allowed in is no passing state: said where the page's content starts, too.
  alert.hidden = event.detail.state !== "unauthorized";
  alert.textContent = alert.hidden ? "" : event.detail.message;
});

// The stream first: its snapshot is what the first screen waits for.
live.start();
onNavigate(show);
show(route());
