// Routing by location.pathname: `/`, `/wifi`, `/bluetooth`, `/devices/ID` (the server serves index.html for each).

const listeners = new Set();

/** The screen of a path: `{name: "devices"|"wifi"|"bluetooth"|"device"|"missing", id?}`. */
export function route(pathname = location.pathname) {
  if (pathname === "/" || pathname === "/index.html") return { name: "devices" };
  if (pathname === "/wifi") return { name: "wifi" };
  if (pathname === "/bluetooth") return { name: "bluetooth" };
  const match = /^\/devices\/([^/]+)$/.exec(pathname);
  if (match) return { name: "device", id: decodeURIComponent(match[1]) };
  return { name: "missing" };
}

/** Goes to `path` without loading the page again. */
export function navigate(path) {
  history.pushState(null, "", path);
  for (const listener of listeners) listener(route());
}

/** Calls `listener(route)` on every navigation (links, back and forward). */
export function onNavigate(listener) {
  listeners.add(listener);
}

addEventListener("popstate", () => {
  for (const listener of listeners) listener(route());
});

/** Same-origin links to a page path go through navigate(); others (and modified clicks) behave as links. */
document.addEventListener("click", (event) => {
  const link = event.target.closest?.("a[href]");
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const url = new URL(link.href);
  if (url.origin !== location.origin || url.pathname.startsWith("/api/") || url.pathname.startsWith("/assets/")) return;
  if (url.hash && url.pathname === location.pathname) return; // a link within the page (skip to the list)
  event.preventDefault();
  navigate(url.pathname + url.search);
});
