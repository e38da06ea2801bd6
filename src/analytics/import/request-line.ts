export interface RequestLine {
  method: string;
  target: string;
}

const METHOD = /^[A-Za-z]{1,16}$/;

/**
 * Splits an HTTP request line ("GET /a b HTTP/1.1") into method and target. Returns
 * undefined for anything that is not a request line, such as "-" or the binary noise a
 * TLS handshake leaves in an access log when it reaches a plain HTTP port.
 */
export function parseRequestLine(text: string): RequestLine | undefined {
  const parts = text.split(' ').filter((part) => part !== '');
  const method = parts[0];
  if (method === undefined || parts.length < 2 || !METHOD.test(method)) return undefined;
  const last = parts[parts.length - 1] ?? '';
  // Some servers log the target unescaped, so a space can sit inside it; HTTP/0.9 has no version.
  const hasVersion = parts.length >= 3 && last.startsWith('HTTP/');
  const target = (hasVersion ? parts.slice(1, -1) : parts.slice(1)).join(' ');
  return { method, target };
}
