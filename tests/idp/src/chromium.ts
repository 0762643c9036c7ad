import { existsSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";

/** Debian's Chromium, which `scripts/machine-ready.mjs` installs (or CHROMIUM_PATH). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** What the person in the browser does. */
export interface SignInOptions {
  /** The login typed on a sign-in page (the subject of the tokens issued); default `alice`. */
  login?: string;
  /** The password typed where one is asked; default `password` (the development provider takes any). */
  password?: string;
  /** Whether the person approves each consent page (default) or declines it. */
  consent?: boolean;
  /**
   * Where the flow ends: the browser stops when it is sent there and the URL it was sent to is the result. Default
   * the `redirect_uri` of the URL the sign-in starts at.
   */
  redirectUri?: string;
  /** A browser to open the page in (closed by its owner); default one launched for this sign-in and closed after. */
  browser?: Browser;
  /** How many pages the person acts on before giving up; default 10. */
  maxPages?: number;
}

/** Launches headless Chromium (its sandbox kept unless running as root, which it refuses). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(`no Chromium at ${CHROMIUM_PATH}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, chromiumSandbox: process.getuid?.() !== 0 });
}

const APPROVE = /approve|allow|accept|authori[sz]e|continue|consent|confirm|yes|sign[- ]?in|log[- ]?in/i;
const DECLINE = /deny|decline|reject|cancel|abort|\bno\b/i;

/**
 * Opens `url` in headless Chromium and acts as a person would on every page until the browser is sent to the
 * redirect URI: types the login (and a password) on a sign-in page, approves (or declines) each consent page,
 * whichever site serves it. Returns the URL the browser was sent to, with its `code`, `state` and `iss` (or `error`).
 * Pages may load nothing from beyond loopback addresses.
 */
export async function signInWithChromium(url: string, options: SignInOptions = {}): Promise<string> {
  const target = new URL(options.redirectUri ?? new URL(url).searchParams.get("redirect_uri") ?? "");
  if (target.protocol !== "http:" && target.protocol !== "https:")
    throw new Error(`no redirect URI to stop at: ${url} has no redirect_uri`);
  const browser = options.browser ?? (await launchChromium());
  const context = await browser.newContext();
  try {
    let landed: ((href: string) => void) | undefined;
    const arrival = new Promise<string>((resolve) => {
      landed = resolve;
    });
    let arrived: string | undefined;
    // A redirect is no request of its own to route: the request event sees every hop, so it tells the arrival.
    context.on("request", (request) => {
      const requested = new URL(request.url());
      if (arrived === undefined && requested.origin === target.origin && requested.pathname === target.pathname) {
        arrived = requested.href;
        landed?.(requested.href);
      }
    });
    // Pages load nothing from outside the machine (oidc-provider's pages ask for a web font).
    await context.route(
      (requested) => !isLoopback(requested.hostname),
      (route) => route.abort("blockedbyclient"),
    );
    const page = await context.newPage();
    // The provider may send the browser straight back (an error, a consent already given): that is an arrival.
    await page.goto(url).catch((error: unknown) => {
      if (arrived === undefined) throw error;
    });
    for (let pages = 0; pages < (options.maxPages ?? 10); pages++) {
      if (arrived !== undefined) return arrived;
      const navigated = page.waitForEvent("framenavigated", (frame) => frame === page.mainFrame());
      navigated.catch(() => undefined);
      await act(page, options);
      await Promise.race([arrival, navigated.then(() => page.waitForLoadState("load"))]);
    }
    if (arrived !== undefined) return arrived;
    throw new Error(`sign-in did not reach ${target.href} after ${options.maxPages ?? 10} pages; last ${page.url()}`);
  } finally {
    await context.close();
    if (options.browser === undefined) await browser.close();
  }
}

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** Fills the page's sign-in fields, if any, and presses what a person would press to go on. */
async function act(page: Page, options: SignInOptions): Promise<void> {
  const login = page.locator('input[name="login"], input[name="username"], input[type="email"]').first();
  const signIn = (await login.count()) > 0;
  if (signIn) await login.fill(options.login ?? "alice");
  const password = page.locator('input[type="password"]').first();
  if ((await password.count()) > 0) await password.fill(options.password ?? "password");
  const buttons = page.locator('form button:not([type="button"]):not([type="reset"]), form input[type="submit"]');
  const labels: string[] = [];
  for (let i = 0; i < (await buttons.count()); i++) {
    const button = buttons.nth(i);
    labels.push(((await button.textContent()) || (await button.getAttribute("value")) || "").trim());
  }
  const decline = !signIn && options.consent === false;
  let choice = labels.findIndex((label) => (decline ? DECLINE : APPROVE).test(label));
  if (choice === -1 && decline) {
    // A consent form that only goes on (oidc-provider's): declining is its link.
    const link = page.getByRole("link", { name: DECLINE }).first();
    if ((await link.count()) > 0) return link.click();
  }
  if (choice === -1 && !decline && labels.length > 0) choice = 0;
  if (choice === -1) {
    const text = ((await page.locator("body").textContent()) ?? "").slice(0, 500);
    throw new Error(`nothing to press on ${page.url()}: ${text}`);
  }
  return buttons.nth(choice).click();
}
