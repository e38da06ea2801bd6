import { describe, expect, it } from 'vitest';
import { projectSettingsSchema } from '../../src/projects/project-input.js';
import { parseSiteHosts, siteHostsFieldError, siteHostsProblem } from '../../web/src/lib/site-hosts.js';

/** Hosts on both sides of the server's rule: the dashboard's check must agree with it on every one. */
const SAMPLES = [
  'docs.example.com',
  'Docs.Example.COM',
  'docs.example.com:8443',
  'localhost:3000',
  'xn--bcher-kva.example',
  '192.0.2.10',
  'a'.repeat(255),
  'a'.repeat(256),
  'https://docs.example.com',
  'docs.example.com/path',
  'docs.example.com:',
  'docs.example.com:123456',
  'docs_example.com',
  '[::1]:8080',
  'user@docs.example.com',
  'docs.example.com?x=1',
  'dócs.example.com',
];

describe('the settings page checks site hosts as the server does', () => {
  it.each(SAMPLES)('%s', (host) => {
    const server = projectSettingsSchema.safeParse({ siteHosts: [host] }).success;
    expect(siteHostsProblem([host]) === null).toBe(server);
  });

  it('splits on lines, commas and spaces and names the first bad host', () => {
    expect(parseSiteHosts(' docs.example.com\n\nwww.example.com, status.example.com:8443 ')).toEqual([
      'docs.example.com',
      'www.example.com',
      'status.example.com:8443',
    ]);
    expect(siteHostsProblem(['docs.example.com', 'https://www.example.com', 'bad host'])).toContain('“https://www.example.com”: write the host alone');
  });

  it('finds the server’s message on the list or on one entry', () => {
    expect(siteHostsFieldError({ 'settings.siteHosts.3': 'must be a host name' })).toBe('must be a host name');
    expect(siteHostsFieldError({ 'settings.siteHosts': 'Too big' })).toBe('Too big');
    expect(siteHostsFieldError({ 'settings.allowedOrigins.0': 'Invalid URL' })).toBeUndefined();
  });
});
