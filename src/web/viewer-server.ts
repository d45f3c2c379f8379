/**
 * @module
 * `rebench serve`'s HTTP server: the built pages (dist/web) and the JSON API of ViewerApi, read only, plus
 * server-sent events that follow a running run. Safe by default: it binds 127.0.0.1 and answers only requests
 * addressed to localhost (a page elsewhere cannot reach it through DNS rebinding); on another host every
 * request needs the token printed at start (once in the URL, then a same-site cookie). Pages run no inline
 * script and fetch nothing from elsewhere (Content-Security-Policy), and they put what agents wrote in the
 * DOM as text only.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { isTerminal, NotFoundError, RebenchError } from "../core/index.js";
import type { RunStore } from "../store/index.js";
import { indexHtml, loadClient } from "./client-dir.js";
import { ViewerApi } from "./viewer-api.js";

export interface ViewerOptions {
  store: RunStore;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Required on every request when set; `startViewer` makes one for a host other than loopback. */
  token?: string;
  /** Milliseconds between the live stream's looks at the store. Default 500. */
  pollMs?: number;
}

export interface Viewer {
  url: string;
  /** The URL to open (with the token, when there is one). */
  openUrl: string;
  token: string | undefined;
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);
const COOKIE = "rebench_token";
const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".map": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
};
export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || host.startsWith("127.");
}

export async function startViewer(options: ViewerOptions): Promise<Viewer> {
  const host = options.host ?? "127.0.0.1";
  const token = options.token ?? (isLoopback(host) ? undefined : randomBytes(18).toString("base64url"));
  const api = new ViewerApi(options.store);
  const files = await loadClient();
  const index = indexHtml(files, "live");
  const streams = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => fail(res, error));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://viewer");
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, { error: "the viewer is read only" });
    if (token === undefined && !isLoopback(hostName(req.headers.host ?? ""))) {
      return send(res, 421, {
        error: "this viewer answers only requests to localhost; start it with --host to serve another address (a token is then required)",
      });
    }
    if (token !== undefined) {
      const given = url.searchParams.get("token");
      if (given !== null && same(given, token) && !url.pathname.startsWith("/api/")) {
        // Trade the token in the URL for a cookie, and drop it from the address bar.
        res.writeHead(303, { "Set-Cookie": `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`, Location: url.pathname });
        return void res.end();
      }
      if (!authorized(req, token)) return send(res, 401, { error: "this viewer needs its token: open the URL `rebench serve` printed (…/?token=…)" });
    }
    const route = url.pathname;
    if (route === "/" || route === "/index.html") return sendText(res, 200, index, TYPES[".html"]!);
    if (!route.startsWith("/api/")) return sendFile(res, files, route);
    const parts = route.slice("/api/".length).split("/").map(decodeURIComponent);
    if (parts[0] === "meta") return send(res, 200, { mode: "live", store: options.store.location, notes: [] });
    if (parts[0] === "compare") return send(res, 200, await api.compare(url.searchParams));
    if (parts[0] !== "runs") throw new NotFoundError(`no API ${route}`);
    const id = parts[1];
    if (id === undefined || id === "") return send(res, 200, await api.runs(url.searchParams));
    switch (parts[2]) {
      case undefined:
        return send(res, 200, await api.run(id));
      case "items":
        if (parts[3] !== undefined) return send(res, 200, await api.item(id, integer(parts[3])));
        return send(res, 200, await api.items(id, integer(url.searchParams.get("page") ?? "0")));
      case "outline":
        return send(res, 200, await api.outline(id));
      case "search":
        return send(res, 200, await api.search(id, url.searchParams.get("q") ?? ""));
      case "recording":
        return send(res, 200, await api.recording(id));
      case "live":
        return follow(req, res, id, integer(url.searchParams.get("after") ?? "0"));
      default:
        throw new NotFoundError(`no API ${route}`);
    }
  }

  /** Server-sent events: `update` with the items after the cursor whenever the run moves, `end` once it ended. */
  async function follow(req: IncomingMessage, res: ServerResponse, id: string, after: number): Promise<void> {
    let cursor = after;
    const first = await api.live(id, cursor);
    res.writeHead(200, { ...headers(), "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store", Connection: "keep-alive" });
    streams.add(res);
    let timer: NodeJS.Timeout | undefined;
    let beats = 0;
    let closed = false;
    const stop = () => {
      closed = true;
      if (timer) clearTimeout(timer);
      streams.delete(res);
      res.end();
    };
    req.on("close", stop);
    const push = async (update: Awaited<ReturnType<ViewerApi["live"]>>) => {
      if (closed) return;
      if (update.items.length > 0 || cursor === after) res.write(`event: update\ndata: ${JSON.stringify(update)}\n\n`);
      cursor = update.items.at(-1)?.seq ?? cursor;
      if (isTerminal(update.row.state as never) && cursor >= update.row.events) {
        res.write("event: end\ndata: {}\n\n");
        return stop();
      }
      if (++beats % 30 === 0) res.write(": still here\n\n");
      timer = setTimeout(() => {
        api.live(id, cursor).then(push, () => stop());
      }, options.pollMs ?? 500);
    };
    await push(first);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${shownHost}:${address.port}/`;
  return {
    url,
    openUrl: token === undefined ? url : `${url}?token=${token}`,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of streams) res.end();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function hostName(header: string): string {
  const bracketed = /^\[([^\]]+)\]/.exec(header);
  if (bracketed) return bracketed[1]!;
  return header.replace(/:\d+$/, "");
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function authorized(req: IncomingMessage, token: string): boolean {
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
  if (bearer && same(bearer, token)) return true;
  for (const pair of (req.headers.cookie ?? "").split(";")) {
    const [name, value] = pair.trim().split("=");
    if (name === COOKIE && value !== undefined && same(value, token)) return true;
  }
  return false;
}

function integer(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new RebenchBadRequest(`expected a whole number, got "${text}"`);
  return n;
}

class RebenchBadRequest extends Error {}

function headers(): Record<string, string> {
  return { "Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY" };
}

function send(res: ServerResponse, status: number, value: unknown): void {
  sendText(res, status, JSON.stringify(value), "application/json; charset=utf-8");
}

function sendText(res: ServerResponse, status: number, text: string | Buffer, type: string): void {
  res.writeHead(status, { ...headers(), "Content-Type": type, "Cache-Control": "no-store" });
  res.end(text);
}

function sendFile(res: ServerResponse, files: Map<string, Buffer>, route: string): void {
  const name = route.slice(1);
  const body = files.get(name);
  const type = TYPES[path.extname(name)];
  if (body === undefined || type === undefined || name.includes("/")) throw new NotFoundError(`no file ${route}`);
  sendText(res, 200, body, type);
}

function fail(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  if (error instanceof NotFoundError) {
    send(res, 404, { error: error.message, hint: error.hint });
    return;
  }
  if (error instanceof RebenchError && error.exitCode === 2) {
    send(res, 400, { error: error.message, hint: error.hint });
    return;
  }
  if (error instanceof RebenchBadRequest) {
    send(res, 400, { error: error.message });
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`rebench serve: ${error instanceof Error ? (error.stack ?? message) : message}\n`);
  send(res, 500, { error: `the viewer failed: ${message}` });
}
