// Server-Sent Events framing (the WHATWG HTML standard's "event stream interpretation"), for a stream read with
// fetch() and a ReadableStream: EventSource cannot send the Authorization header.

/**
 * Splits the text of an event stream into events. Feed it chunks as they arrive (a line or an event may span
 * chunks); it returns the events each chunk completes.
 */
export class EventStreamParser {
  constructor() {
    this.buffer = "";
    this.data = [];
    this.type = "";
    this.id = null;
    this.endedWithCR = false;
  }

  /**
   * @param {string} text The next decoded chunk.
   * @returns {{id: string|null, event: string, data: string}[]} The events the chunk completed, in order.
   */
  push(text) {
    const events = [];
    // A CR ending the last chunk was a line end; an LF starting this one belongs to it.
    if (this.endedWithCR && text.startsWith("\n")) text = text.slice(1);
    this.buffer += text;
    this.endedWithCR = text.endsWith("\r");
    // A chunk without a line end only lengthens the line: no rescan of the buffer (a snapshot's data line is megabytes
    // in hundreds of chunks; scanning it whole at each one was quadratic).
    if (!/[\r\n]/.test(text)) return events;
    let start = 0;
    const lineEnd = /\r\n|\r|\n/g;
    for (let match = lineEnd.exec(this.buffer); match; match = lineEnd.exec(this.buffer)) {
      const event = this.line(this.buffer.slice(start, match.index));
      if (event) events.push(event);
      start = lineEnd.lastIndex;
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  line(line) {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return null; // a comment: keepalive
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.type = value;
    else if (field === "id" && !value.includes("\0")) this.id = value;
    return null;
  }

  dispatch() {
    const event = this.data.length ? { id: this.id, event: this.type || "message", data: this.data.join("\n") } : null;
    this.data = [];
    this.type = "";
    return event;
  }
}

/**
 * The events of a fetch() response's body, as they arrive.
 *
 * @param {ReadableStream<Uint8Array>} body
 */
export async function* readEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new EventStreamParser();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      yield* parser.push(value);
    }
  } finally {
    reader.releaseLock();
  }
}
