// The HTTP side of the page: the token (from `#token=…`, kept in sessionStorage), GET and POST of the peerscan-web
// API with `Authorization: Bearer` when a token is known, and the errors a caller tells apart.

const tokenKey = "peerscan.token";

/** Takes `#token=…` out of the address bar into sessionStorage (the fragment never reaches a server or a log). */
export function adoptTokenFromFragment() {
  const match = /^#token=([^&]*)/.exec(location.hash);
  if (!match) return;
  sessionStorage.setItem(tokenKey, decodeURIComponent(match[1]));
  history.replaceState(history.state, "", location.pathname + location.search);
}

/** The headers every request carries. */
export function authHeaders(extra = {}) {
  const token = sessionStorage.getItem(tokenKey);
  return token ? { ...extra, Authorization: `Bearer ${token}` } : { ...extra };
}

/** A reply other than 2xx: `status`, and the Varlink error's name and parameters when the server sent them. */
export class APIError extends Error {
  constructor(status, error, parameters) {
    super(APIError.describe(status, error, parameters));
    this.status = status;
    this.error = error;
    this.parameters = parameters;
  }

  /** `Not authorized: open the address …`, `io.peerscan.CannotMerge (reason: …)`. */
  static describe(status, error, parameters) {
    if (status === 401) return "Not authorized: open the address “peerscanctl web-url” prints (it carries the token).";
    if (status === 421) return "This host name is not allowed by peerscan-web (see its --web-host option).";
    if (!error) return `The server answered ${status}.`;
    const details = Object.entries(parameters ?? {}).map(([key, value]) => `${key}: ${value}`);
    return details.length ? `${error} (${details.join(", ")})` : error;
  }
}

async function replyJSON(response) {
  if (response.ok) return response.json();
  let body = {};
  try {
    body = await response.json();
  } catch {
    // not JSON: the status says enough
  }
  throw new APIError(response.status, body.error, body.parameters);
}

/** `GET path` → its JSON. */
export async function getJSON(path, signal) {
  return replyJSON(await fetch(path, { headers: authHeaders({ Accept: "application/json" }), signal }));
}

/** `POST /api/METHOD` with the method's parameters → its reply. */
export async function callMethod(method, parameters) {
  const response = await fetch(`/api/${method}`, {
    method: "POST",
    headers: authHeaders({ "Content-Type": "application/json", Accept: "application/json" }),
    body: JSON.stringify(parameters),
  });
  return replyJSON(response);
}
