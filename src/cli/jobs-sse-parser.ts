/** One dispatched Server-Sent Event. */
export interface ServerSentEvent {
  /** The last `id:` seen on the stream so far, which is what a reconnect resumes from. */
  id: string | undefined;
  type: string;
  data: string;
}

/**
 * An incremental `text/event-stream` parser following the WHATWG rules: lines end in
 * CRLF, LF or CR; `data:` lines join with newlines; comments and unknown fields are
 * ignored; an event without data is not dispatched. Chunks may split anywhere, even
 * between the CR and LF of one line ending.
 */
export class ServerSentEventParser {
  /** The server's `retry:` advice in milliseconds, if it gave any. */
  retryMs: number | undefined;
  private buffer = '';
  private started = false;
  private skipLeadingLineFeed = false;
  private dataLines: string[] = [];
  private type = '';
  private lastEventId: string | undefined;

  push(chunk: string): ServerSentEvent[] {
    let text = chunk;
    if (this.skipLeadingLineFeed && text.length > 0) {
      if (text.startsWith('\n')) text = text.slice(1);
      this.skipLeadingLineFeed = false;
    }
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.startsWith('\uFEFF')) text = text.slice(1);
    }
    this.buffer += text;
    const events: ServerSentEvent[] = [];
    let lineStart = 0;
    for (let index = 0; index < this.buffer.length; index++) {
      const character = this.buffer[index];
      if (character !== '\n' && character !== '\r') continue;
      const line = this.buffer.slice(lineStart, index);
      if (character === '\r') {
        if (index + 1 < this.buffer.length) {
          if (this.buffer[index + 1] === '\n') index++;
        } else {
          // The LF of this CRLF may arrive in the next chunk; it must not end an empty line.
          this.skipLeadingLineFeed = true;
        }
      }
      lineStart = index + 1;
      const event = this.processLine(line);
      if (event) events.push(event);
    }
    this.buffer = this.buffer.slice(lineStart);
    return events;
  }

  private processLine(line: string): ServerSentEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.dataLines.push(value);
    else if (field === 'event') this.type = value;
    else if (field === 'id' && !value.includes('\u0000')) this.lastEventId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
    return undefined;
  }

  private dispatch(): ServerSentEvent | undefined {
    const dataLines = this.dataLines;
    const type = this.type;
    this.dataLines = [];
    this.type = '';
    if (dataLines.length === 0) return undefined;
    return { id: this.lastEventId, type: type === '' ? 'message' : type, data: dataLines.join('\n') };
  }
}
