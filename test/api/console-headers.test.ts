import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { consoleRouter } from '../../src/api/console';
import { raw } from '../support/auth-baton';

// Every answer of the console carries its Content-Security-Policy (frame-ancestors 'none'): the page
// asked for by its file name too, which the static file handler answers, so no page can frame it.

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-console-'));
fs.mkdirSync(path.join(dir, 'assets'));
fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>console</title>');
fs.writeFileSync(path.join(dir, 'assets', 'index-abc.js'), 'console.log(1)');
const server = http.createServer(express().use(consoleRouter(dir)));
let port: number;

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});

test.each(['/', '/index.html', '/executions/abc', '/assets/index-abc.js'])('GET %s carries the CSP that forbids framing', async (p) => {
  const r = await raw(port, 'GET', p);
  expect(r.status).toBe(200);
  expect(r.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(r.headers['x-frame-options']).toBe('DENY');
  expect(r.headers['x-content-type-options']).toBe('nosniff');
});

test('the page is the page whichever way it is asked for', async () => {
  expect((await raw(port, 'GET', '/index.html')).text).toBe((await raw(port, 'GET', '/')).text);
});
