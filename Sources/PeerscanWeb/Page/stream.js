// The live snapshot: `GET /api/events` read with fetch() (so the Authorization header goes along), the first snapshot
// event, then each changeset applied in order. A gap in the sequence resumes with `Last-Event-ID: E:N`; a changeset
// that does not apply starts over from a fresh snapshot; a dropped connection reconnects with backoff.

import { applyChanges } from "./applier.js";
import { APIError, authHeaders } from "./api.js";
import { readEvents } from "./sse.js";

/** Why the stream is given up and opened again. */
class StreamRestart extends Error {
  constructor(message, { fresh = false } = {}) {
    super(message);
    this.fresh = fresh;
  }
}

const backoffSteps = [1, 2, 4, 8, 15, 30];

/**
 * Holds the snapshot and keeps it current. Events:
 * - `change`: `detail` = `{snapshot, previous, changes}` (`changes` null when a snapshot replaced it);
 * - `status`: `detail` = `{state, message}`, state `connecting`, `live`, `reconnecting`, `unauthorized`.
 */
export class LiveSnapshot extends EventTarget {
  constructor() {
    super();
    this.snapshot = null;
    this.epoch = null;
    this.sequence = null;
    this.status = { state: "connecting", message: "Connecting…" };
    this.failures = 0;
  }

  /** Connects, and keeps connecting, until `stop()`. */
  async start() {
    this.running = true;
    while (this.running) {
      this.controller = new AbortController();
      let immediate = false;
      try {
        await this.follow(this.controller.signal);
        this.report("reconnecting", "The connection to peerscan-web ended; reconnecting…");
      } catch (error) {
        if (!this.running) return;
        if (error instanceof StreamRestart) {
          this.report("reconnecting", `${error.message}; resuming…`);
          immediate = this.failures === 0; // at once the first time; a repeated failure backs off
          if (error.fresh) {
            this.epoch = null;
            this.sequence = null;
          }
        } else if (error instanceof APIError) {
          this.report(error.status === 401 ? "unauthorized" : "reconnecting", error.message);
        } else {
          this.report("reconnecting", `No connection to peerscan-web (${error.message}); retrying…`);
        }
      }
      this.controller.abort(); // closes a response still open after a restart
      if (!immediate) await this.pause();
      this.failures += 1;
    }
  }

  stop() {
    this.running = false;
    this.controller?.abort();
  }

  /** Waits the next backoff step (with jitter, so that many pages do not come back at the same instant). */
  pause() {
    const seconds = backoffSteps[Math.min(this.failures, backoffSteps.length - 1)];
    const delay = seconds * 1000 * (0.8 + Math.random() * 0.4);
    this.status.retryAt = Date.now() + delay;
    return new Promise((resolve) => setTimeout(resolve, delay));
  }

  async follow(signal) {
    const headers = authHeaders({ Accept: "text/event-stream" });
    if (this.epoch !== null) headers["Last-Event-ID"] = `${this.epoch}:${this.sequence}`;
    this.report("connecting", this.epoch === null ? "Connecting…" : "Reconnecting…");
    const response = await fetch("/api/events", { headers, signal, cache: "no-store" });
    if (!response.ok) throw new APIError(response.status);
    for await (const event of readEvents(response.body)) {
      if (event.event === "snapshot") this.replace(JSON.parse(event.data));
      else if (event.event === "changeset") this.apply(JSON.parse(event.data));
      else continue;
      this.failures = 0;
      this.report("live", `Live · sequence ${this.sequence}`);
    }
  }

  replace(message) {
    const previous = this.snapshot;
    this.snapshot = message.snapshot;
    this.epoch = message.epoch;
    this.sequence = message.sequence;
    this.markSequence();
    this.dispatchEvent(new CustomEvent("change", { detail: { snapshot: this.snapshot, previous, changes: null } }));
  }

  apply(message) {
    if (this.snapshot === null) throw new StreamRestart("A changeset came before any snapshot", { fresh: true });
    if (message.epoch !== this.epoch) throw new StreamRestart("peerscand restarted", { fresh: true });
    if (message.sequence <= this.sequence) return; // already applied (a resume that overlapped)
    if (message.sequence !== this.sequence + 1) {
      throw new StreamRestart(`Changesets ${this.sequence + 1}–${message.sequence - 1} are missing`);
    }
    let next;
    try {
      next = applyChanges(this.snapshot, message.changes);
    } catch (error) {
      throw new StreamRestart(`Changeset ${message.sequence} does not apply (${error.message})`, { fresh: true });
    }
    const previous = this.snapshot;
    this.snapshot = next;
    this.sequence = message.sequence;
    this.markSequence();
    this.dispatchEvent(new CustomEvent("change", { detail: { snapshot: next, previous, changes: message.changes } }));
  }

  /** `data-sequence="E:N"` on the document's root: what the page shows, for its end-to-end tests to read. */
  markSequence() {
    document.documentElement.dataset.sequence = `${this.epoch}:${this.sequence}`;
  }

  report(state, message) {
    this.status = { state, message };
    this.dispatchEvent(new CustomEvent("status", { detail: this.status }));
  }
}

/** The items of section `id` (empty when the section is absent: scanning off). */
export function sectionItems(snapshot, id) {
  return snapshot?.sections.find((section) => section.id === id)?.items ?? [];
}
